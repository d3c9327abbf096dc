import { join } from 'node:path'

// React and the test tools come from the repository's node_modules, two folders up.
export default {
  turbopack: { root: join(import.meta.dirname, '..', '..') },
  outputFileTracingRoot: join(import.meta.dirname, '..', '..'),
}
