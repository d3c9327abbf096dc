import { ESLint } from 'eslint'
import { join } from 'node:path'
import tseslint from 'typescript-eslint'
import { describe, expect, it } from 'vitest'
import { layers } from './layers.js'

const root = join(import.meta.dirname, '..')
const eslint = new ESLint({
  cwd: root,
  overrideConfigFile: true,
  overrideConfig: [
    {
      files: ['**/*.ts', '**/*.tsx'],
      languageOptions: { parser: tseslint.parser },
      plugins: { layers },
      rules: { 'layers/imports': 'error' },
    },
  ],
})

async function problems(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, file) })
  return result!.messages.map((message) => message.message)
}

describe('the layer rule of npm run lint', () => {
  it('fails an import that points up a layer', async () => {
    expect(await problems('src/core/x.ts', `import { ToolCallingAdvisor } from '../advisors'`)).toEqual([
      'src/core may not import src/advisors (it may import nothing outside itself).',
    ])
  })

  it('fails a model adapter that imports the trace or the tools', async () => {
    expect(await problems('src/models/x.ts', `import { Redactor } from '../trace/redact'`)).toEqual([
      'src/models may not import src/trace (it may import src/core).',
    ])
    expect(await problems('src/models/x.ts', `import { defineTool } from '../tools'`)).toHaveLength(1)
  })

  it('fails devtools that reach past the trace entry', async () => {
    expect(await problems('devtools/x.ts', `import { ApprovalQueue } from 'advisor-chain'`)).toEqual([
      'devtools may not import the root barrel; import the layer it needs.',
    ])
    expect(await problems('devtools/x.ts', `import { ObserverAdvisor } from '../src/advisors'`)).toEqual([
      'devtools may not import src/advisors (it may import src/trace, src/storage).',
    ])
  })

  it('keeps WebLLM in src/webllm and React in the UI layers', async () => {
    expect(await problems('src/client/x.ts', `const webllm = import('@mlc-ai/web-llm')`)).toEqual([
      "Only src/webllm may import '@mlc-ai/web-llm'.",
    ])
    expect(await problems('src/core/x.ts', `import { useState } from 'react'`)).toEqual([
      "Only src/react, devtools, demo may import 'react'.",
    ])
    expect(await problems('src/webllm/x.ts', `import { CreateMLCEngine } from '@mlc-ai/web-llm'`)).toEqual([])
  })

  it('keeps storage between core and memory', async () => {
    expect(await problems('src/storage/x.ts', `import { ChatMemoryError } from '../memory'`)).toEqual([
      'src/storage may not import src/memory (it may import src/core).',
    ])
    expect(await problems('src/core/x.ts', `import { openIndexedDB } from '../storage'`)).toHaveLength(1)
    expect(await problems('src/memory/x.ts', `import { IndexedDBConnection } from '../storage'`)).toEqual([])
    expect(await problems('src/retrieval/x.ts', `import { IndexedDBConnection } from '../storage'`)).toEqual([])
  })

  it('lets imports point down', async () => {
    expect(
      await problems(
        'src/advisors/x.ts',
        `import { defineTool } from '../tools'\nimport { TraceReader } from '../trace'`,
      ),
    ).toEqual([])
    expect(await problems('devtools/x.ts', `import { TraceReader } from 'advisor-chain/trace'`)).toEqual([])
    expect(await problems('devtools/x.ts', `import { IndexedDBConnection } from '../src/storage'`)).toEqual([])
  })
})
