// advisor-chain/server: keys on the server. Runs in any Fetch API server (Next.js route handlers,
// Hono, Deno, Bun, workers) and in Node's http; it imports nothing of the browser or of Node.
export { createModelProxy, type ModelProxyOptions } from './model-proxy'
export { nodeHandler } from './node-handler'
