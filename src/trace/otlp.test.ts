import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { ChatClient } from '../client'
import { ScriptedChatModel } from '../models'
import { defineTool } from '../tools'
import { TraceCollector } from './collector'
import { ObserverAdvisor } from '../advisors'
import { OtlpTraceSink, exportToOtlp, toOtlp, type OtlpSpan, type OtlpTraceRequest } from './otlp'

const weather = defineTool({
  name: 'weather',
  description: 'Weather',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
  execute: ({ city }) => `sunny in ${city}`,
})

async function recordedRun(): Promise<TraceCollector> {
  const collector = new TraceCollector()
  const model = new ScriptedChatModel([
    {
      toolCalls: [{ id: 'call-1', name: 'weather', arguments: { city: 'Oslo' } }],
      usage: { promptTokens: 10, completionTokens: 4, totalTokens: 14 },
      model: 'gpt-test',
    },
    { text: 'Sunny.', usage: { promptTokens: 20, completionTokens: 2, totalTokens: 22 }, model: 'gpt-test' },
  ])
  await ChatClient.builder(model)
    .defaultTools(weather)
    .defaultAdvisors(new ObserverAdvisor({ sink: collector }))
    .build()
    .prompt('Weather?')
    .options({ model: 'gpt-test', temperature: 0.5 })
    .call()
    .content()
  return collector
}

const attr = (span: OtlpSpan, key: string) => span.attributes.find((a) => a.key === key)?.value

/** A loopback OTLP collector that checks what it receives. */
async function collectorServer() {
  const received: Array<{ path: string; contentType: string | undefined; body: OtlpTraceRequest }> = []
  const server = createServer((request: IncomingMessage, response) => {
    let body = ''
    request.on('data', (chunk: Buffer) => (body += chunk.toString()))
    request.on('end', () => {
      received.push({
        path: request.url ?? '',
        contentType: request.headers['content-type'],
        body: JSON.parse(body) as OtlpTraceRequest,
      })
      response.writeHead(request.url === '/v1/traces' ? 200 : 404, { 'content-type': 'application/json' }).end('{}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  servers.push(server)
  return { url: `http://127.0.0.1:${port}/v1/traces`, received }
}
const servers: Array<ReturnType<typeof createServer>> = []
afterEach(() => servers.splice(0).forEach((server) => server.close()))

describe('OpenTelemetry export', () => {
  it('turns a run into GenAI spans: the run, its rounds, chat calls and tool executions', async () => {
    const { events } = await recordedRun()
    const spans = toOtlp(events).resourceSpans[0]!.scopeSpans[0]!.spans
    expect(spans.map((s) => s.name)).toEqual([
      'invoke_agent advisor-chain',
      'round 1',
      'chat gpt-test',
      'execute_tool weather',
      'round 2',
      'chat gpt-test',
    ])
    const [run, round1, chat, tool] = spans as [OtlpSpan, OtlpSpan, OtlpSpan, OtlpSpan]
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1)
    expect(run.traceId).toMatch(/^[0-9a-f]{32}$/)
    expect(round1.parentSpanId).toBe(run.spanId)
    expect([chat.parentSpanId, tool.parentSpanId]).toEqual([round1.spanId, round1.spanId])
    expect(chat.kind).toBe(3)
    expect(attr(chat, 'gen_ai.operation.name')).toEqual({ stringValue: 'chat' })
    expect(attr(chat, 'gen_ai.request.model')).toEqual({ stringValue: 'gpt-test' })
    expect(attr(chat, 'gen_ai.request.temperature')).toEqual({ doubleValue: 0.5 })
    expect(attr(chat, 'gen_ai.usage.input_tokens')).toEqual({ intValue: '10' })
    expect(attr(chat, 'gen_ai.response.finish_reasons')).toEqual({
      arrayValue: { values: [{ stringValue: 'tool_calls' }] },
    })
    expect(attr(tool, 'gen_ai.tool.name')).toEqual({ stringValue: 'weather' })
    expect(attr(tool, 'gen_ai.tool.call.id')).toEqual({ stringValue: 'call-1' })
    expect(attr(run, 'gen_ai.usage.output_tokens')).toEqual({ intValue: '6' })
    for (const span of spans) {
      expect(span.startTimeUnixNano).toMatch(/^\d{19}$/)
      expect(BigInt(span.endTimeUnixNano) >= BigInt(span.startTimeUnixNano)).toBe(true)
    }
  })

  it('gives every run a random traceId of its own and every span a unique spanId', async () => {
    const collector = new TraceCollector()
    const client = ChatClient.builder(new ScriptedChatModel(() => 'ok'))
      .defaultAdvisors(new ObserverAdvisor({ sink: collector }))
      .build()
    for (let i = 0; i < 40; i++) await client.prompt(`q${i}`).call().content()
    const spans = toOtlp(collector.events).resourceSpans[0]!.scopeSpans[0]!.spans
    const runs = spans.filter((span) => span.name === 'invoke_agent advisor-chain')
    expect(runs).toHaveLength(40)
    expect(new Set(runs.map((span) => span.traceId)).size).toBe(40)
    expect(new Set(spans.map((span) => span.spanId)).size).toBe(spans.length)
    for (const span of spans) {
      expect(span.traceId).toMatch(/^(?!0+$)[0-9a-f]{32}$/)
      expect(span.spanId).toMatch(/^(?!0+$)[0-9a-f]{16}$/)
    }
  })

  it('posts OTLP/HTTP JSON to a collector', async () => {
    const server = await collectorServer()
    const { events } = await recordedRun()
    await exportToOtlp(events, { url: server.url, headers: { 'x-team': 'web' }, serviceName: 'shop' })
    expect(server.received).toHaveLength(1)
    const { path, contentType, body } = server.received[0]!
    expect([path, contentType]).toEqual(['/v1/traces', 'application/json'])
    expect(body.resourceSpans[0]!.resource.attributes).toEqual([
      { key: 'service.name', value: { stringValue: 'shop' } },
    ])
    expect(body.resourceSpans[0]!.scopeSpans[0]!.spans).toHaveLength(6)
  })

  it('says what the collector answered when it refuses', async () => {
    const server = await collectorServer()
    await expect(
      exportToOtlp((await recordedRun()).events, { url: server.url.replace('/v1/traces', '/nope') }),
    ).rejects.toThrow(/refused the traces: HTTP 404/)
  })

  it('sends each run as it ends when used as a sink', async () => {
    const server = await collectorServer()
    const sink = new OtlpTraceSink({ url: server.url })
    const model = new ScriptedChatModel(['a', 'b'])
    const client = ChatClient.builder(model).defaultAdvisors(new ObserverAdvisor({ sink })).build()
    await client.prompt('one').call().content()
    await client.prompt('two').call().content()
    await expect.poll(() => server.received.length).toBe(2)
  })
})
