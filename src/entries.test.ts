import { join } from 'node:path'
import { build, type Rolldown } from 'vite'
import { describe, expect, it } from 'vitest'

// The library as `npm run build` builds it: an entry for reading runs or drawing them must not
// carry the provider adapters (they come with the root barrel only).

const root = join(import.meta.dirname, '..')
const PROVIDER_CODE = /api\.openai\.com|anthropic-version|OpenAIChatModel|AnthropicChatModel/

async function libraryChunks(): Promise<Map<string, Rolldown.OutputChunk>> {
  const result = await build({
    root,
    configFile: join(root, 'vite.config.ts'),
    mode: 'lib',
    logLevel: 'silent',
    build: { write: false, sourcemap: false, minify: false },
  })
  const outputs = (Array.isArray(result) ? result : [result]) as Rolldown.RolldownOutput[]
  const chunks = outputs
    .flatMap((output) => output.output)
    .filter((item): item is Rolldown.OutputChunk => item.type === 'chunk')
  return new Map(chunks.map((chunk) => [chunk.fileName, chunk]))
}

/** The code an entry loads before anything lazy: itself and its static imports, transitively. */
function eagerCode(chunks: Map<string, Rolldown.OutputChunk>, entry: string): string {
  const seen = new Set<string>()
  const visit = (name: string): string => {
    const chunk = chunks.get(name)
    if (!chunk || seen.has(name)) return ''
    seen.add(name)
    return [chunk.code, ...chunk.imports.map(visit)].join('\n')
  }
  return visit(entry)
}

describe('library entries', () => {
  it('devtools, react, trace and playwright carry no provider adapter code; the root entry does', async () => {
    const chunks = await libraryChunks()
    for (const entry of ['devtools/index.js', 'src/react/index.js', 'src/trace/index.js', 'src/playwright/index.js']) {
      expect(chunks.has(entry), entry).toBe(true)
      expect(eagerCode(chunks, entry), entry).not.toMatch(PROVIDER_CODE)
    }
    expect(eagerCode(chunks, 'src/index.js')).toMatch(PROVIDER_CODE)
  }, 120_000)

  it('retrieval carries its embedding model but no chat adapter and no engine', async () => {
    const chunks = await libraryChunks()
    const code = eagerCode(chunks, 'src/retrieval/index.js')
    expect(code).toMatch(/OpenAIEmbeddingModel/)
    expect(code).not.toMatch(/anthropic-version|OpenAIChatModel|AnthropicChatModel|@mlc-ai\/web-llm/)
  }, 120_000)
})
