import { join } from 'node:path'
import { build, type Rolldown } from 'vite'
import { describe, expect, it } from 'vitest'

// Built as a user's bundler would: the core must not carry WebLLM, and the WebLLM entry must reach
// the runtime (about 2.2 MB gzip) only through a dynamic import.

const root = join(import.meta.dirname, '..', '..')

async function bundle(entry: string): Promise<Rolldown.OutputChunk[]> {
  const result = await build({
    root,
    configFile: false,
    logLevel: 'silent',
    build: {
      write: false,
      minify: false,
      lib: { entry: join(root, entry), formats: ['es'] },
      rolldownOptions: { external: [/^@mlc-ai\/web-llm/, /^ajv/, /^@cfworker/] },
    },
  })
  const output = (Array.isArray(result) ? result[0]! : result) as Rolldown.RolldownOutput
  return output.output.filter((item): item is Rolldown.OutputChunk => item.type === 'chunk')
}

describe('bundles', () => {
  it('the core entry contains no WebLLM, not even a dynamic import of it', async () => {
    const chunks = await bundle('src/index.ts')
    const code = chunks.map((chunk) => chunk.code).join('\n')
    expect(code).not.toMatch(/@mlc-ai\/web-llm|MLCEngine|CreateWebWorkerMLCEngine/)
  }, 60_000)

  it('the webllm entry loads the runtime only with a dynamic import', async () => {
    const chunks = await bundle('src/webllm/index.ts')
    for (const chunk of chunks) {
      expect(chunk.imports.filter((id) => id.includes('web-llm'))).toEqual([])
    }
    const dynamic = chunks.flatMap((chunk) => chunk.dynamicImports)
    expect(dynamic.some((id) => id.includes('@mlc-ai/web-llm'))).toBe(true)
  }, 60_000)
})
