/**
 * The browser build's `engine/node-form.ts`: a browser's axios has no http adapter, so a form is
 * never sent through it; it is encoded once by the platform (`body.ts`).
 */
export function pinnedOverHttp(): boolean {
  return false;
}
