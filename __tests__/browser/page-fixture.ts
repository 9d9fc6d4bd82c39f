/**
 * One Chromium page per test file, on an app bundled with esbuild and served by the scripted test
 * server from the page's own origin: built and opened before the file's tests, closed after them.
 * After each test the page must have logged nothing but Chromium's own "Failed to load resource"
 * lines for the status the file's server answers on purpose.
 */
import type { Browser } from 'playwright-core';
import { launch, openPage } from './browser';
import type { WatchedPage } from './browser';
import { createProject } from './build';
import type { Project, Variant } from './build';
import { startServer } from './server';
import type { TestServer } from './server';

export interface PageFixture {
  readonly server: TestServer;
  readonly browser: Browser;
  readonly watched: WatchedPage;
}

export function pageFixture(variant: Variant): PageFixture {
  let project: Project | undefined;
  let server: TestServer | undefined;
  let browser: Browser | undefined;
  let watched: WatchedPage | undefined;

  beforeAll(async () => {
    project = await createProject();
    const built = await project.build('esbuild', variant);
    server = await startServer({ staticDir: built.dir });
    browser = await launch();
    watched = await openPage(browser, server.origin);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await project?.remove();
  });

  afterEach(() => {
    // Chromium's own "Failed to load resource: <status>" lines are expected; the app's are not.
    expect(watched!.problems.splice(0)).toEqual([]);
  });

  return {
    get server() {
      return server!;
    },
    get browser() {
      return browser!;
    },
    get watched() {
      return watched!;
    },
  };
}
