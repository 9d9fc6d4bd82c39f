// RetryToken lives beside the bucket it draws from (`local-budget.ts`): a retry's token is then one
// file's few entries. This path is kept for the imports that name it (the engine's, a test's).
export { RetryToken } from './local-budget';
