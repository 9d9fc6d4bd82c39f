/** The attempt header (X-Retry-Attempt by default): off unless asked for, then numbering every attempt. */
import { client } from '../support/helpers';
import { closeAll, script, useNock } from '../support/nock-helpers';

const API = 'http://api.test';

useNock();
afterEach(closeAll);

describe('attempt header', () => {
  test('off by default: nothing extra is sent', async () => {
    const seen = script(API, 'get', '/r', [503, 200]);
    const { http } = client();
    await http.get(`${API}/r`);
    expect(seen.map((s) => s.headers['x-retry-attempt'])).toEqual([undefined, undefined]);
  });

  test('attemptHeader: true numbers every attempt in X-Retry-Attempt', async () => {
    const seen = script(API, 'get', '/r', [503, 503, 200]);
    const { http } = client({ attemptHeader: true });
    await http.get(`${API}/r`);
    expect(seen.map((s) => s.headers['x-retry-attempt'])).toEqual(['1', '2', '3']);
  });

  test('a string names the header, and a request can turn it off', async () => {
    const seen = script(API, 'get', '/r', [503, 200]);
    const { http } = client({ attemptHeader: 'Attempt' });
    await http.get(`${API}/r`);
    await http.get(`${API}/r`, { retry: { attemptHeader: false } });
    expect(seen.map((s) => s.headers.attempt)).toEqual(['1', '2', undefined]);
  });

  test('a bad header name is refused', () => {
    expect(() => client({ attemptHeader: 'Bad Header' })).toThrow(
      /attemptHeader must be false, true or a header name such as "X-Retry-Attempt", got the string "Bad Header"/,
    );
  });
});
