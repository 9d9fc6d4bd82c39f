// The project's Jest settings with `opossum` mapped to the browser build's breaker
// (lib/guards/lite-circuit.ts): `npm run test:lite-breaker` runs the breaker tests against it, so
// the breaker a browser bundle carries passes the same tests as opossum does in Node.
const { jest: base } = require('./package.json');

module.exports = {
  ...base,
  rootDir: __dirname,
  moduleNameMapper: { ...base.moduleNameMapper, '^opossum$': '<rootDir>/lib/guards/lite-circuit.ts' },
};
