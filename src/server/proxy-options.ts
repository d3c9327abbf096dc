import { endpointURL, providerNamed, type EndpointName, type Provider, type ProviderName } from './providers'
import type { ToolPolicy } from './tool-policy'

export interface ModelProxyOptions {
  /** The API the page's adapter speaks: OpenAIChatModel, OpenAIResponsesChatModel or AnthropicChatModel. */
  provider: 'openai' | 'openai-responses' | 'anthropic'
  /** The provider's key; it never reaches the page, and is scrubbed from every answer. Without it, every request gets a 500. */
  apiKey: string
  /**
   * The provider's base URL, kept as given, path and query: the endpoint's path is added to its path
   * (`https://api.openai.com/v1` → `…/v1/chat/completions`; Azure's `…/deployments/d?api-version=…` keeps
   * its query). Default: the provider's public API. An Azure host gets the key in `api-key`.
   */
  baseURL?: string
  /** The only models the page may ask for (chat and embedding models). */
  models: readonly string[]
  /** Caps max_tokens, max_completion_tokens and max_output_tokens; a request without one gets the cap. */
  maxTokens?: number
  /** The largest request body taken (default 4 MB). */
  maxBodyBytes?: number
  /** The longest wait for the page's request body (then 408) and for a provider's error body (then 502); default 30 s. */
  bodyTimeoutMs?: number
  /**
   * Decides whether a request may use the model: check a signed session (a cookie or a token your
   * server issued), and a rate limit; false answers 401. An Origin check is no authorization.
   */
  authorize?: (request: Request) => boolean | Promise<boolean>
  /** What the proxy serves: 'chat' (the provider's chat endpoint) and 'embeddings' (OpenAI's `/embeddings`). Default ['chat']. */
  endpoints?: ReadonlyArray<'chat' | 'embeddings'>
  /** A system prompt the server puts first in every chat request; the page's own system messages follow it. */
  system?: string
  /** The tools a page may send: 'any' (default), 'none', or their names (a provider's built-in tools by their type). */
  tools?: 'any' | 'none' | readonly string[]
  /**
   * Tokens each answered request used, read from the answer (a stream is asked for its usage), for
   * budgets and per-user limits. When the answer does not say — the page left before the end, the
   * server sends none — the output is counted at the request's output cap and the input estimated
   * from the body's size (4 bytes a token). `model` is the model the page asked for.
   */
  onUsage?: (usage: { inputTokens: number; outputTokens: number; model: string }, request: Request) => void
}

export interface ProxyConfig {
  provider: ProviderName
  api: Provider
  apiKey: string
  keyHeader: Record<string, string>
  upstream: Partial<Record<EndpointName, URL>>
  models: ReadonlySet<string>
  maxTokens: number | undefined
  maxBodyBytes: number
  bodyTimeoutMs: number
  system: string | undefined
  tools: ToolPolicy
  authorize: ModelProxyOptions['authorize']
  onUsage: ModelProxyOptions['onUsage']
}

const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024
const DEFAULT_BODY_TIMEOUT_MS = 30_000

/** The options checked once, when the route module loads; a wrong one is a TypeError naming it. */
export function proxyConfig(options: ModelProxyOptions): ProxyConfig {
  if (typeof options !== 'object' || options === null) throw new TypeError('createModelProxy needs its options')
  const api = providerNamed(options.provider)
  if (!api)
    throw new TypeError(
      `createModelProxy: provider must be 'openai', 'openai-responses' or 'anthropic', got ${JSON.stringify(options.provider)}`,
    )
  if (options.apiKey !== undefined && typeof options.apiKey !== 'string')
    throw new TypeError('createModelProxy: apiKey must be a string (read it from the server environment)')
  if (
    !Array.isArray(options.models) ||
    options.models.length === 0 ||
    !options.models.every((m) => typeof m === 'string')
  )
    throw new TypeError('createModelProxy needs the models the page may ask for, e.g. { models: ["gpt-4o-mini"] }')
  const baseURL = parseBaseURL(options.baseURL ?? api.baseURL)
  const endpoints = options.endpoints ?? ['chat']
  if (!Array.isArray(endpoints) || endpoints.length === 0)
    throw new TypeError(
      `createModelProxy: endpoints must list 'chat' and/or 'embeddings', got ${JSON.stringify(endpoints)}`,
    )
  const upstream: ProxyConfig['upstream'] = {}
  for (const endpoint of endpoints as readonly unknown[]) {
    const path =
      typeof endpoint === 'string' && Object.hasOwn(api.endpoints, endpoint)
        ? api.endpoints[endpoint as EndpointName]
        : undefined
    if (!path)
      throw new TypeError(
        `createModelProxy: the ${options.provider} provider has no endpoint ${JSON.stringify(endpoint)}; it serves ${Object.keys(api.endpoints).join(' and ')}`,
      )
    upstream[endpoint as EndpointName] = endpointURL(baseURL, path)
  }
  if (options.system !== undefined && (typeof options.system !== 'string' || options.system.trim() === ''))
    throw new TypeError(`createModelProxy: system must be a non-empty string, got ${JSON.stringify(options.system)}`)
  const tools = options.tools ?? 'any'
  if (tools !== 'any' && tools !== 'none' && !(Array.isArray(tools) && tools.every((name) => typeof name === 'string')))
    throw new TypeError(
      `createModelProxy: tools must be 'any', 'none' or a list of tool names, got ${JSON.stringify(tools)}`,
    )
  for (const hook of ['authorize', 'onUsage'] as const)
    if (options[hook] !== undefined && typeof options[hook] !== 'function')
      throw new TypeError(`createModelProxy: ${hook} must be a function`)
  return {
    provider: options.provider,
    api,
    apiKey: options.apiKey,
    keyHeader: options.apiKey ? api.keyHeader(options.apiKey, baseURL.hostname) : {},
    upstream,
    models: new Set(options.models),
    maxTokens: positive('maxTokens', options.maxTokens),
    maxBodyBytes: positive('maxBodyBytes', options.maxBodyBytes) ?? DEFAULT_MAX_BODY_BYTES,
    bodyTimeoutMs: positive('bodyTimeoutMs', options.bodyTimeoutMs) ?? DEFAULT_BODY_TIMEOUT_MS,
    system: options.system,
    tools,
    authorize: options.authorize,
    onUsage: options.onUsage,
  }
}

function parseBaseURL(baseURL: unknown): URL {
  const url = typeof baseURL === 'string' && URL.canParse(baseURL) ? new URL(baseURL) : undefined
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:'))
    throw new TypeError(
      `createModelProxy: baseURL must be an http(s) URL such as 'https://api.openai.com/v1', got ${JSON.stringify(baseURL)}`,
    )
  return url
}

function positive(name: string, value: number | undefined): number | undefined {
  if (value !== undefined && !(Number.isInteger(value) && value > 0))
    throw new RangeError(`createModelProxy: ${name} must be a whole number above 0, got ${value}`)
  return value
}
