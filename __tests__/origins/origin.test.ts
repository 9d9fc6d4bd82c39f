import { BoundedMap } from '../../lib/guards/origins';
import { originOf, pageOrigin } from '../../lib/policy/origin';

describe('originOf', () => {
  test.each([
    ['http://api.test/v1/x?y=1', undefined, 'http://api.test:80'],
    ['https://API.test:8443/x', undefined, 'https://api.test:8443'],
    ['https://user:pw@api.test/x', undefined, 'https://api.test:443'],
    ['/v1/payments', 'https://pay.test/api', 'https://pay.test:443'],
    ['http://[::1]:3000/x', undefined, 'http://[::1]:3000'],
  ])('%s (base %s) is %s', (url, base, origin) => {
    expect(originOf(url, base)).toBe(origin);
  });

  test('an empty baseURL is no origin, asked first in a fresh process too', () => {
    jest.isolateModules(() => {
      const fresh = jest.requireActual<typeof import('../../lib/policy/origin')>('../../lib/policy/origin');
      expect(fresh.originOf('/x', '')).toBe('relative:');
      expect(fresh.originOf(undefined, undefined)).toBe('relative:');
    });
  });

  test('asked again, or in turn, each gives what it gave the first time (the last origin is kept)', () => {
    for (let round = 0; round < 2; round++) {
      expect(originOf('/x', '')).toBe('relative:');
      expect(originOf('/x', 'https://a.test/v1')).toBe('https://a.test:443');
      expect(originOf('/x', 'https://a.test/v1')).toBe('https://a.test:443');
      expect(originOf('http://b.test/y', 'https://a.test/v1')).toBe('http://b.test:80');
      expect(originOf('/x', undefined)).toBe('relative:');
      expect(originOf('https://a.test/v1', undefined)).toBe('https://a.test:443');
      expect(originOf('/x', '')).toBe('relative:');
    }
  });
});

describe('in a browser page', () => {
  const realLocation = Object.getOwnPropertyDescriptor(globalThis, 'location');
  afterEach(() => {
    if (realLocation) Object.defineProperty(globalThis, 'location', realLocation);
    else delete (globalThis as { location?: unknown }).location;
  });

  test('a relative URL belongs to the page, written like an absolute URL to it (default port included)', () => {
    Object.defineProperty(globalThis, 'location', { value: { origin: 'https://Shop.test' }, configurable: true });
    expect(pageOrigin()).toBe('https://shop.test:443');
    expect(originOf('/v1/cart', undefined)).toBe('https://shop.test:443');
    expect(originOf('https://shop.test/v1/cart', undefined)).toBe(originOf('/v1/cart', undefined));
  });

  test('no page in Node', () => {
    expect(pageOrigin()).toBeUndefined();
    expect(originOf('/v1/cart', undefined)).toBe('relative:');
  });
});

describe('BoundedMap', () => {
  test('drops the least recently used entry past its limit and reports it', () => {
    const evicted: string[] = [];
    const map = new BoundedMap<number>(2, (_v, key) => evicted.push(key));
    map.getOrCreate('a', () => 1);
    map.getOrCreate('b', () => 2);
    map.getOrCreate('a', () => 99); // touch a: b is now the oldest
    map.getOrCreate('c', () => 3);
    expect(evicted).toEqual(['b']);
    expect([...map.keys()]).toEqual(['a', 'c']);
    expect(map.get('a')).toBe(1);
  });

  test('evicts in least-recently-used order over a long mix of new keys, touches and evictions', () => {
    // A model: an array in LRU order. The map keeps one iterator between evictions; this pins that
    // it still finds the oldest key after touches, evictions and a clear.
    const limit = 5;
    const evicted: string[] = [];
    const expected: string[] = [];
    const map = new BoundedMap<number>(limit, (_v, key) => evicted.push(key));
    let model: string[] = [];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let i = 0; i < 2000; i++) {
      if (i === 1000) {
        map.clear();
        model = [];
      }
      const key = `k${Math.floor(next() * 12)}`;
      map.getOrCreate(key, () => i);
      model = model.filter((k) => k !== key).concat(key);
      if (model.length > limit) expected.push(model.shift()!);
    }
    expect(evicted).toEqual(expected);
    expect([...map.keys()]).toEqual(model);
  });
});
