/**
 * The events of the browser build's breaker (lib/guards/emitter.ts) behave as Node's EventEmitter
 * does where a breaker's users can tell: order, `once`, removal, `newListener`.
 */
import { Emitter } from '../../lib/guards/emitter';

test('listeners run in the order added; one removed during an emit still runs in that emit', () => {
  const heard: string[] = [];
  const emitter = new Emitter();
  const second = (): void => void heard.push('second');
  emitter.on('open', () => {
    heard.push('first');
    emitter.removeListener('open', second);
  });
  emitter.on('open', second);
  expect(emitter.emit('open')).toBe(true);
  emitter.emit('open');
  expect(heard).toEqual(['first', 'second', 'first']);
  expect(emitter.emit('close')).toBe(false);
});

test('once runs one time, and removeListener with the original listener removes it before', () => {
  const heard: number[] = [];
  const emitter = new Emitter();
  const listener = (n: number): void => void heard.push(n);
  emitter.once('halfOpen', listener);
  emitter.emit('halfOpen', 1);
  emitter.emit('halfOpen', 2);
  emitter.once('halfOpen', listener);
  emitter.removeListener('halfOpen', listener);
  emitter.emit('halfOpen', 3);
  expect(heard).toEqual([1]);
  expect(emitter.listenerCount('halfOpen')).toBe(0);
});

test('newListener hears each listener before it is added', () => {
  const emitter = new Emitter();
  const seen: Array<[string | symbol, number]> = [];
  emitter.on('newListener', (event: string | symbol) => void seen.push([event, emitter.listenerCount(event)]));
  emitter.on('success', () => undefined);
  emitter.on('success', () => undefined);
  expect(seen).toEqual([
    ['success', 0],
    ['success', 1],
  ]);
});
