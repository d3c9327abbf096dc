import { describe, expect, it } from 'vitest'
import { ChatModelError } from '../models/errors'
import { EmbeddingInputError } from './embedding-model'
import { OpenAIEmbeddingModel } from './openai-embedding'

// Answers shaped as OpenAI documents POST /v1/embeddings:
// { object: 'list', data: [{ object: 'embedding', index, embedding }], model, usage }.

interface Sent {
  url: string
  headers: Record<string, string>
  body: { model: string; input: string[]; encoding_format?: string; dimensions?: number }
}

function server(answer: (body: Sent['body'], call: number) => Response) {
  const sent: Sent[] = []
  const fetch = (async (url: string, init: RequestInit) => {
    init.signal?.throwIfAborted()
    const body = JSON.parse(init.body as string) as Sent['body']
    sent.push({ url, headers: init.headers as Record<string, string>, body })
    return answer(body, sent.length)
  }) as typeof globalThis.fetch
  return { fetch, sent }
}

const embeddingOf = (text: string) => [text.length, 1, 0.5]
const ok = (body: Sent['body'], shuffle = false) => {
  const data = body.input.map((text, index) => ({ object: 'embedding', index, embedding: embeddingOf(text) }))
  if (shuffle) data.reverse()
  return Response.json({
    object: 'list',
    data,
    model: body.model,
    usage: { prompt_tokens: body.input.length, total_tokens: body.input.length },
  })
}

describe('OpenAIEmbeddingModel', () => {
  it('posts the texts in batches to /embeddings and returns Float32Arrays in input order', async () => {
    const { fetch, sent } = server((body) => ok(body, true))
    const model = new OpenAIEmbeddingModel({
      baseURL: 'https://example.test/v1/',
      apiKey: 'sk-test-secret-1234567890',
      model: 'text-embedding-3-small',
      dimensions: 3,
      batchSize: 2,
      fetch,
    })
    const vectors = await model.embed(['a', 'bb', 'ccc'])
    expect(vectors.map((vector) => Array.from(vector))).toEqual([
      embeddingOf('a'),
      embeddingOf('bb'),
      embeddingOf('ccc'),
    ])
    expect(vectors[0]).toBeInstanceOf(Float32Array)
    expect(sent.map((request) => request.body.input)).toEqual([['a', 'bb'], ['ccc']])
    expect(sent[0]!.url).toBe('https://example.test/v1/embeddings')
    expect(sent[0]!.headers['authorization']).toBe('Bearer sk-test-secret-1234567890')
    expect(sent[0]!.body).toMatchObject({ model: 'text-embedding-3-small', dimensions: 3, encoding_format: 'float' })
  })

  it('reads base64 embeddings (little-endian float32)', async () => {
    const { fetch } = server(() => {
      const bytes = new Uint8Array(Float32Array.from([0.25, -1]).buffer)
      return Response.json({ data: [{ index: 0, embedding: btoa(String.fromCharCode(...bytes)) }] })
    })
    const [vector] = await new OpenAIEmbeddingModel({ model: 'm', fetch }).embed(['x'])
    expect(Array.from(vector!)).toEqual([0.25, -1])
  })

  it('retries a rate-limited request after the retry-after the server asks for', async () => {
    const { fetch, sent } = server((body, call) =>
      call === 1
        ? Response.json(
            { error: { message: 'Rate limit reached', type: 'requests' } },
            { status: 429, headers: { 'retry-after-ms': '5' } },
          )
        : ok(body),
    )
    const vectors = await new OpenAIEmbeddingModel({ model: 'm', fetch }).embed(['a'])
    expect(vectors).toHaveLength(1)
    expect(sent).toHaveLength(2)
  })

  it('gives up after maxRetries and fails the whole call (no partial result)', async () => {
    const { fetch, sent } = server((body, call) =>
      call === 1 ? ok(body) : new Response('upstream down', { status: 503, headers: { 'retry-after-ms': '1' } }),
    )
    const model = new OpenAIEmbeddingModel({ model: 'm', fetch, batchSize: 1, maxRetries: 1 })
    const failure = await model.embed(['a', 'b']).catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(ChatModelError)
    expect(failure).toMatchObject({ status: 503, retryable: true })
    expect(sent).toHaveLength(3)
  })

  it('never shows the API key in an error', async () => {
    const key = 'sk-proj-leaky-key-0987654321'
    const { fetch } = server(() =>
      Response.json(
        {
          error: {
            message: `Incorrect API key provided: ${key}.`,
            type: 'invalid_request_error',
            code: 'invalid_api_key',
          },
        },
        { status: 401 },
      ),
    )
    const failure = (await new OpenAIEmbeddingModel({ model: 'm', apiKey: key, fetch })
      .embed(['a'])
      .catch((error: unknown) => error)) as ChatModelError
    expect(failure.status).toBe(401)
    expect(failure.retryable).toBe(false)
    expect(failure.message).toContain('invalid_api_key')
    expect(failure.message).not.toContain(key)
  })

  it('refuses an answer that is not shaped like OpenAI’s, naming what is wrong', async () => {
    const cases: Array<[unknown, string]> = [
      [{ data: [] }, "expected 1 embeddings in 'data', got 0"],
      [{ data: [{ index: 0, embedding: [1, 'x'] }] }, 'data[0].embedding[1] is "x", not a finite number'],
      [{ data: [{ index: 3, embedding: [1] }] }, 'data[0].index is 3'],
      [{ nothing: true }, "expected 1 embeddings in 'data', got undefined"],
    ]
    for (const [answer, message] of cases) {
      const { fetch } = server(() => Response.json(answer))
      await expect(new OpenAIEmbeddingModel({ model: 'm', fetch }).embed(['a'])).rejects.toThrow(message)
    }
  })

  it('names the text a server refused as too long (input[N]) and a text over maxInputLength', async () => {
    const { fetch, sent } = server(() =>
      Response.json(
        {
          error: { message: "Invalid 'input[1]': maximum input length is 8192 tokens.", type: 'invalid_request_error' },
        },
        { status: 400 },
      ),
    )
    const model = new OpenAIEmbeddingModel({ model: 'm', fetch, batchSize: 2, maxInputLength: 10 })
    await expect(model.embed(['short', 'x'.repeat(11)])).rejects.toMatchObject({
      name: 'EmbeddingInputError',
      index: 1,
    })
    expect(sent).toHaveLength(0)
    const refused = await model.embed(['a', 'b', 'c', 'd']).catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(EmbeddingInputError)
    expect((refused as EmbeddingInputError).index).toBe(1)
  })

  it('stops with an AbortError when the signal aborts', async () => {
    const { fetch } = server((body) => ok(body))
    const controller = new AbortController()
    controller.abort()
    await expect(
      new OpenAIEmbeddingModel({ model: 'm', fetch }).embed(['a'], { signal: controller.signal }),
    ).rejects.toMatchObject({ name: 'AbortError' })
  })
})
