// The plugin's own seeded source (chaos uses it for `chaos.seed`), exported here for tests.
export { seededRandom } from '../policy/random';
