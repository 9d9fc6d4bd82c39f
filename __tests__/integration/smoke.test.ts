import axios from 'axios';
import nock from 'nock';
import { retryPlugin } from '../../lib';

test('smoke: 503, 503, 200', async () => {
  const scope = nock('http://api.test').get('/x').times(2).reply(503).get('/x').reply(200, { ok: true });
  const plugin = retryPlugin({ random: () => 0.5, baseDelayMs: 1 });
  const http = axios.create();
  plugin.install(http);
  const res = await http.get('http://api.test/x');
  expect(res.status).toBe(200);
  expect(res.config.retryState).toEqual({ attempts: 3, delaysMs: [0, 1] });
  scope.done();
  await plugin.close();
});
