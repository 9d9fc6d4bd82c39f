/**
 * Measured figures a test reports (payments per scenario, heap growth, exit lag). A passing
 * `npm test` stays quiet; `VERBOSE=1 npx jest --reporters=default [file]` prints them (the summary
 * reporter `npm test` uses drops console output), which
 * is how the tables in docs/reliability.md are gathered.
 */
export function reportFigures(label: string, figures: unknown): void {
  if (!verbose()) return;
  console.log(`${label}: ${typeof figures === 'string' ? figures : JSON.stringify(figures)}`);
}

function verbose(): boolean {
  const value = process.env.VERBOSE;
  return value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false';
}
