import { proxyError, scrubKey } from './proxy-errors'
import { readLimitedJson } from './request-body'

export interface ModelProxyOptions {
  /** The API the page's adapter speaks: OpenAIChatModel, OpenAIResponsesChatModel or AnthropicChatModel. */
  provider: 'openai' | 'openai-responses' | 'anthropic'
  /** The provider's key; it never reaches the page, and is scrubbed from every answer. Without it, every request gets a 500. */
  apiKey: string
  /** The provider's base URL; default its public API. */
  baseURL?: string
  /** The only models the page may ask for. */
  models: readonly string[]
  /** Caps max_tokens, max_completion_tokens and max_output_tokens; a request without one gets the cap. */
  maxTokens?: number
  /** The largest request body taken (default 4 MB). */
  maxBodyBytes?: number
  /** Decides whether a request may use the model (a session, a rate limit); false answers 401. */
  authorize?: (request: Request) => boolean | Promise<boolean>
}

interface Provider {
  /** The endpoint the page's adapter posts to, as the end of the route's path. */
  endpoint: string
  baseURL: string
  /** The output-token limits a request of this API can carry; the first is set when none is. */
  tokenFields: readonly string[]
  headers(apiKey: string, request: Request): Record<string, string>
}

const PROVIDERS: Record<ModelProxyOptions['provider'], Provider> = {
  openai: {
    endpoint: 'chat/completions',
    baseURL: 'https://api.openai.com/v1',
    tokenFields: ['max_completion_tokens', 'max_tokens'],
    headers: (apiKey) => ({ authorization: `Bearer ${apiKey}` }),
  },
  'openai-responses': {
    endpoint: 'responses',
    baseURL: 'https://api.openai.com/v1',
    tokenFields: ['max_output_tokens'],
    headers: (apiKey) => ({ authorization: `Bearer ${apiKey}` }),
  },
  anthropic: {
    endpoint: 'v1/messages',
    baseURL: 'https://api.anthropic.com',
    tokenFields: ['max_tokens'],
    headers: (apiKey, request) => ({
      'x-api-key': apiKey,
      'anthropic-version': request.headers.get('anthropic-version') ?? '2023-06-01',
      ...(request.headers.get('anthropic-beta') ? { 'anthropic-beta': request.headers.get('anthropic-beta')! } : {}),
    }),
  },
}

/** Headers of the provider's answer the page may see; the body is decoded already, so no encoding or length. */
const PASSED_HEADERS =
  /^(content-type|retry-after|retry-after-ms|x-should-retry|x-request-id|request-id|x-ratelimit-.*|anthropic-ratelimit-.*)$/i

const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024

/**
 * A Fetch API handler that keeps a model API's key on the server: the page's adapter posts to it
 * (its `baseURL` is the route), and it forwards the request to the provider with the key, after
 * checking it — the model one of `models`, every output-token limit capped, the body under
 * `maxBodyBytes`, `authorize` passed. The answer streams through as it comes; a page that goes away
 * cancels the provider's request. Use it as a Next.js route handler (`export const POST = proxy`),
 * in Hono (`app.post('/api/model/*', (c) => proxy(c.req.raw))`), or in Node's http with `nodeHandler`.
 */
export function createModelProxy(options: ModelProxyOptions): (request: Request) => Promise<Response> {
  const provider = PROVIDERS[options.provider]
  if (!provider)
    throw new TypeError(
      `createModelProxy: provider must be 'openai', 'openai-responses' or 'anthropic', got ${String(options.provider)}`,
    )
  if (options.apiKey !== undefined && typeof options.apiKey !== 'string')
    throw new TypeError('createModelProxy: apiKey must be a string (read it from the server environment)')
  if (!Array.isArray(options.models) || options.models.length === 0)
    throw new TypeError('createModelProxy needs the models the page may ask for, e.g. { models: ["gpt-4o-mini"] }')
  const maxTokens = options.maxTokens
  if (maxTokens !== undefined && !(Number.isInteger(maxTokens) && maxTokens > 0))
    throw new RangeError(`createModelProxy: maxTokens must be a whole number above 0, got ${maxTokens}`)
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES
  if (!(Number.isInteger(maxBodyBytes) && maxBodyBytes > 0))
    throw new RangeError(`createModelProxy: maxBodyBytes must be a whole number above 0, got ${maxBodyBytes}`)
  const upstream = `${(options.baseURL ?? provider.baseURL).replace(/\/+$/, '')}/${provider.endpoint}`
  const models = new Set(options.models)
  const { apiKey } = options

  return async (request) => {
    // Checked per request, not when the route module loads: a build may load it without the key.
    if (!apiKey) return proxyError(options.provider, 500, 'The model proxy has no API key: set it on the server.')
    if (request.method !== 'POST') return proxyError(options.provider, 405, 'The model proxy takes POST requests only.')
    if (!new URL(request.url).pathname.replace(/\/+$/, '').endsWith(`/${provider.endpoint}`))
      return proxyError(options.provider, 404, `The model proxy forwards ${provider.endpoint} only.`)
    let authorized: boolean
    try {
      authorized = options.authorize ? (await options.authorize(request)) === true : true
    } catch (error) {
      console.error('createModelProxy: authorize failed; the request was refused', error)
      authorized = false
    }
    if (!authorized) return proxyError(options.provider, 401, 'This request may not use the model.')
    const read = await readLimitedJson(request, maxBodyBytes)
    if (!read.ok) return proxyError(options.provider, read.status, read.message)
    const body = read.body
    if (typeof body.model !== 'string' || !models.has(body.model))
      return proxyError(options.provider, 403, `The model ${JSON.stringify(body.model)} is not one this proxy serves.`)
    const capped = capTokens(body, provider.tokenFields, maxTokens)
    if (typeof capped === 'string') return proxyError(options.provider, 400, capped)
    let answer: Response
    try {
      answer = await fetch(upstream, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...provider.headers(apiKey, request) },
        body: JSON.stringify(capped),
        signal: request.signal,
      })
    } catch (error) {
      if (request.signal.aborted) return new Response(null, { status: 499 })
      return proxyError(
        options.provider,
        502,
        `The model proxy could not reach the provider: ${scrubKey(String(error), apiKey)}`,
      )
    }
    return relay(answer, options.provider, apiKey)
  }
}

/** The body with every output-token limit at most `cap` (and the first set to it when none is), or what is wrong. */
function capTokens(
  body: Record<string, unknown>,
  fields: readonly string[],
  cap: number | undefined,
): Record<string, unknown> | string {
  const capped = { ...body }
  let present = false
  for (const field of fields) {
    const value = capped[field]
    if (value === undefined || value === null) continue
    if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0)
      return `${field} must be a whole number above 0, got ${JSON.stringify(value)}`
    present = true
    if (cap !== undefined && value > cap) capped[field] = cap
  }
  if (!present && cap !== undefined) capped[fields[0]!] = cap
  return capped
}

/** The provider's answer for the page: streamed as it comes, with only safe headers; errors without the key. */
async function relay(answer: Response, provider: ModelProxyOptions['provider'], apiKey: string): Promise<Response> {
  const headers = new Headers()
  answer.headers.forEach((value, name) => {
    if (PASSED_HEADERS.test(name)) headers.set(name, value)
  })
  if (answer.ok) return new Response(answer.body, { status: answer.status, headers })
  // The page must not learn anything of the key, not even that it was refused in the provider's words.
  if (answer.status === 401 || answer.status === 403) {
    await answer.body?.cancel().catch(() => {})
    return proxyError(provider, 502, "The provider refused the model proxy's key; check the key on the server.")
  }
  const text = await answer.text().catch(() => '')
  return new Response(scrubKey(text, apiKey), { status: answer.status, headers })
}
