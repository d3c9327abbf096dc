import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { build } from 'esbuild'
import { afterAll, describe, expect, it } from 'vitest'
import type * as Library from './index'

// An app bundled into one file (esbuild without code splitting, as many page and worker builds
// are) turns every module a dynamic import reaches into a lazily initialized one. A module that the
// lazy code and the entry both import must still be initialized before the entry uses it: a tool
// round (loaded on first use) importing from a module the entry needs broke defineTool this way.

const outDir = mkdtempSync(join(tmpdir(), 'advisor-chain-bundle-'))
afterAll(() => rmSync(outDir, { recursive: true, force: true }))

async function singleFileLibrary(): Promise<typeof Library> {
  const outfile = join(outDir, 'library.mjs')
  await build({
    entryPoints: [join(import.meta.dirname, 'index.ts')],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    outfile,
    logLevel: 'silent',
    external: ['@mlc-ai/web-llm', 'react', 'react-dom', 'ajv', 'ajv/*'],
  })
  return (await import(pathToFileURL(outfile).href)) as typeof Library
}

describe('the library bundled into one file', () => {
  it('defines a tool and runs a tool round through an observed client', async () => {
    const { ChatClient, ObserverAdvisor, ScriptedChatModel, TraceCollector, defineTool } = await singleFileLibrary()
    const add = defineTool({
      name: 'add',
      description: 'Adds two numbers',
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
      execute: ({ a, b }) => Number(a) + Number(b),
    })
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 'c1', name: 'add', arguments: { a: 2, b: 3 } }] },
      { text: 'It is 5.' },
    ])
    const trace = new TraceCollector()
    const client = ChatClient.builder(model)
      .defaultTools(add)
      .defaultAdvisors(new ObserverAdvisor({ sink: trace }))
      .build()
    expect(await client.prompt('2 + 3?').call().content()).toBe('It is 5.')
    expect(trace.ofType('tool-end').map((event) => event.result)).toEqual(['5'])
  })
})
