import { describe, expect, it } from 'vitest'
import { ChatClient } from '../client'
import { collect } from '../core/testing/collect'
import { defineTool } from '../tools'
import { checkWebGPU, modelVariantFor } from './capabilities'
import { WebLLMChatModel } from './model'

// Chromium started with --enable-unsafe-webgpu: a software (SwiftShader) adapter without shader-f16.

// The dev server serves every module as a request: the default buffer of 250 entries fills before WebLLM loads.
performance.setResourceTimingBufferSize(100_000)
const webllmLoaded = () => performance.getEntriesByType('resource').some((entry) => /web-llm|web_llm/.test(entry.name))

describe('WebLLM with a software WebGPU adapter', () => {
  it('reports a fallback adapter without shader-f16, and picks the q4f32 variant', async () => {
    const report = await checkWebGPU()
    expect(report).toMatchObject({ ok: true, shaderF16: false, adapter: { isFallbackAdapter: true } })
    expect(report.message).toMatch(/software \(fallback\) WebGPU adapter.*q4f32/)
    expect(modelVariantFor('Qwen3-0.6B-q4f16_1-MLC', report)).toBe('Qwen3-0.6B-q4f32_1-MLC')
  })

  it('refuses a model that needs larger buffers than the GPU allows', async () => {
    expect(await checkWebGPU(8 * 2 ** 30)).toMatchObject({ ok: false, reason: 'too-small' })
  })

  it('runs a tool conversation through the real worker messages, with WebLLM loaded only then', async () => {
    expect(webllmLoaded()).toBe(false)
    const worker = new Worker(new URL('./testing/fake-worker.ts', import.meta.url), { type: 'module' })
    const progress: string[] = []
    const model = await WebLLMChatModel.create({
      model: 'Qwen3-0.6B-q4f16_1-MLC',
      worker,
      onProgress: (report) => progress.push(report.text),
    })
    expect(webllmLoaded()).toBe(true)
    expect(model.model).toBe('Qwen3-0.6B-q4f32_1-MLC')
    const weather = defineTool({
      name: 'weather',
      description: 'Weather',
      inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
      execute: ({ city }) => `sunny in ${city}`,
    })
    const client = ChatClient.builder(model).defaultTools(weather).build()
    expect((await collect(client.prompt('Weather in Oslo?').stream().content())).join('')).toBe('It is sunny in Oslo.')
    expect(await client.prompt('Weather in Oslo?').call().content()).toBe('It is sunny in Oslo.')
    expect(progress).toEqual(['Loaded Qwen3-0.6B-q4f32_1-MLC (fake engine)'])
    worker.terminate()
  })

  it('fails with a clear "cannot download model" error when the weights cannot be fetched', async () => {
    const started = performance.now()
    const failure = await WebLLMChatModel.create({ model: 'SmolLM2-135M-Instruct-q0f32-MLC', worker: false }).catch(
      (error: unknown) => error,
    )
    expect(failure).toMatchObject({ name: 'ChatModelError', provider: 'webllm', code: 'download-failed' })
    expect((failure as Error).message).toMatch(/^Cannot download model 'SmolLM2-135M-Instruct-q0f32-MLC'/)
    expect(performance.now() - started).toBeLessThan(30_000)
  }, 40_000)
})
