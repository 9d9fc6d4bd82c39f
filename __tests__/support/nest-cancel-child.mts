/**
 * The four moments of a cancel under the real @nestjs/axios: a Nest application context with
 * HttpModule, the plugin installed on `HttpService.axiosRef` as an app does in `onModuleInit`, and
 * calls cancelled the way Nest cancels them: by unsubscribing (rxjs `timeout()`, a manual
 * `unsubscribe()`), which makes HttpService cancel its own CancelToken. Prints one JSON line:
 * the give-ups `onGiveUp` saw and how many `plugin.on('giveUp')` heard. argv[2]: the test server.
 */
import 'reflect-metadata';
import { HttpModule, HttpService } from '@nestjs/axios';
import { NestFactory } from '@nestjs/core';
import axios from 'axios';
import { firstValueFrom, timeout } from 'rxjs';
import { retryPlugin } from '../../lib/index.js';

const base = process.argv[2]!;
const app = await NestFactory.createApplicationContext(HttpModule.register({ baseURL: base }), { logger: false });
const http = app.get(HttpService);
const giveUps: string[] = [];
let heard = 0;
let retried = 0;
const plugin = retryPlugin({
  baseDelayMs: 60_000,
  maxDelayMs: 60_000,
  random: () => 0.5,
  onGiveUp: (event) => void giveUps.push(event.stopReason),
  onRetry: () => void retried++,
});
plugin.on('giveUp', () => void heard++);
plugin.install(http.axiosRef);

const tick = () => new Promise((resolve) => setTimeout(resolve, 30));
const settled = async (count: number) => {
  for (let i = 0; i < 100 && giveUps.length < count; i++) await tick();
};

// Before it was sent: a token the caller cancelled already (HttpService keeps a given token).
const source = axios.CancelToken.source();
source.cancel('gone');
await firstValueFrom(http.get('/hold', { cancelToken: source.token })).catch(() => undefined);
await settled(1);
// In the tick it began: subscribed, then unsubscribed at once.
http
  .get('/hold')
  .subscribe({ error: () => undefined })
  .unsubscribe();
await settled(2);
// In flight: rxjs timeout() unsubscribes the held call.
await firstValueFrom(http.get('/hold').pipe(timeout(100))).catch(() => undefined);
await settled(3);
// During its wait: a 503, then unsubscribed while the 30 s wait runs.
const waiting = http.get('/down').subscribe({ error: () => undefined });
for (let i = 0; i < 100 && retried === 0; i++) await tick();
waiting.unsubscribe();
await settled(4);

await plugin.close();
await app.close();
console.log(JSON.stringify({ giveUps, heard }));
