// Prints, as JSON, the JavaScript the project's rollup config produces for one entry
// (`node generate-entry.mjs index`), without writing dist/: { "es": "...", "cjs": "..." }.
// The bundle scan test uses it so it always checks the current sources, never a stale dist/.
import { rollup } from 'rollup';
import configs from '../../rollup.config.mjs';

const name = process.argv[2] ?? 'index';
const config = configs.find((c) => Object.keys(c.input).includes(name) && Array.isArray(c.output));
if (config === undefined) throw new Error(`no JavaScript build for entry ${name} in rollup.config.mjs`);
const bundle = await rollup({ ...config, onwarn: (warning) => process.stderr.write(`${warning.message}\n`) });
const result = {};
for (const output of config.output) {
  const { output: chunks } = await bundle.generate(output);
  result[output.format] = chunks.map((chunk) => (chunk.type === 'chunk' ? chunk.code : '')).join('\n');
  result[`${output.format}Files`] = chunks.map((chunk) => chunk.fileName);
}
await bundle.close();
process.stdout.write(JSON.stringify(result));
