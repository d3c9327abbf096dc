import { join } from 'node:path'
import { build, type Rolldown } from 'vite'
import { describe, expect, it } from 'vitest'

// Built as a user's bundler would: the core must not carry wllama, and the wllama entry must reach
// the runtime (and through it the 10 MB wasm the app serves) only through a dynamic import.

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
      rolldownOptions: { external: [/^@wllama\/wllama/, /^ajv/, /^@cfworker/] },
    },
  })
  const output = (Array.isArray(result) ? result[0]! : result) as Rolldown.RolldownOutput
  return output.output.filter((item): item is Rolldown.OutputChunk => item.type === 'chunk')
}

describe('bundles', () => {
  it('the core entry contains no wllama, not even a dynamic import of it', async () => {
    const code = (await bundle('src/index.ts')).map((chunk) => chunk.code).join('\n')
    expect(code).not.toMatch(/@wllama\/wllama|WllamaChatModel|constrainedTurns/)
  }, 60_000)

  it('the wllama entry loads the runtime only with a dynamic import', async () => {
    const chunks = await bundle('src/wllama/index.ts')
    for (const chunk of chunks) expect(chunk.imports.filter((id) => id.includes('wllama'))).toEqual([])
    const dynamic = chunks.flatMap((chunk) => chunk.dynamicImports)
    expect(dynamic.some((id) => id.includes('@wllama/wllama'))).toBe(true)
  }, 60_000)
})
