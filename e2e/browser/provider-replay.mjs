// A Vite plugin for tests: serves the recorded provider responses over real HTTP at
// /__replay/<provider>/<file>, with the recorded status and content type, in small pieces.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

const fixtures = join(import.meta.dirname, '..', '..', 'src', 'models', '__fixtures__', 'providers')

export function providerReplay() {
  const manifest = JSON.parse(readFileSync(join(fixtures, 'manifest.json'), 'utf8'))
  return {
    name: 'advisor-chain:provider-replay',
    configureServer(server) {
      server.middlewares.use('/__replay/', (request, response) => {
        const file = decodeURIComponent((request.url ?? '').split('?')[0].replace(/^\//, ''))
        const entry = manifest.fixtures.find((fixture) => fixture.file === file)
        if (!entry || file.includes('..')) {
          response.statusCode = 404
          return response.end(`no recording ${file}`)
        }
        const body = readFileSync(join(fixtures, file))
        response.writeHead(entry.response.status, {
          'content-type': entry.response.content_type ?? 'text/event-stream',
        })
        let offset = 0
        const next = () => {
          if (offset >= body.length) return response.end()
          response.write(body.subarray(offset, offset + 53))
          offset += 53
          setTimeout(next, 1)
        }
        next()
      })
    },
  }
}
