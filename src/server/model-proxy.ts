import { headersForProvider } from './header-allow-list'
import { scrubKey } from './key-scrubber'
import { capOutput, outputLimit } from './output-caps'
import { proxyError } from './proxy-errors'
import { proxyConfig, type ModelProxyOptions, type ProxyConfig } from './proxy-options'
import type { EndpointName } from './providers'
import { relay } from './relay'
import { readLimitedJson } from './request-body'
import { withSystem } from './system-prompt'
import { refusedTools } from './tool-policy'
import { askForUsage, type TokenCount } from './usage-reader'

export type { ModelProxyOptions }

/**
 * A Fetch API handler that keeps a model API's key on the server: the page's adapter posts to it
 * (its `baseURL` is the route), and it forwards the request to the provider with the key, after
 * checking it — the endpoint one of `endpoints`, the model one of `models`, every output-token limit
 * capped and one completion only, the tools allowed, the body under `maxBodyBytes`, `authorize`
 * passed. The answer streams through as it comes, without the key; a page that goes away cancels the
 * provider's request. Use it as a Next.js route handler (`export const POST = proxy`), in Hono
 * (`app.post('/api/model/*', (c) => proxy(c.req.raw))`), or in Node's http with `nodeHandler`.
 */
export function createModelProxy(options: ModelProxyOptions): (request: Request) => Promise<Response> {
  const config = proxyConfig(options)
  return async (request) => {
    try {
      return await answer(request, config)
    } catch (error) {
      console.error('createModelProxy: the request failed', error)
      return proxyError(config.provider, 500, 'The model proxy failed on this request; the reason is in its log.')
    }
  }
}

async function answer(request: Request, config: ProxyConfig): Promise<Response> {
  const { provider, api, apiKey } = config
  // Checked per request, not when the route module loads: a build may load it without the key.
  if (!apiKey) return proxyError(provider, 500, 'The model proxy has no API key: set it on the server.')
  if (request.method !== 'POST') return proxyError(provider, 405, 'The model proxy takes POST requests only.')
  const endpoint = endpointOf(new URL(request.url).pathname, config)
  if (!endpoint) {
    const served = Object.keys(config.upstream).map((name) => api.endpoints[name as EndpointName])
    const hint =
      api.endpoints.embeddings && !config.upstream.embeddings
        ? " To serve embeddings, add 'embeddings' to the proxy's endpoints on the server."
        : ''
    // The code tells OpenAIEmbeddingModel that the route is a proxy without embeddings, not a wrong model.
    return proxyError(
      provider,
      404,
      `The model proxy forwards ${served.join(' and ')} only.${hint}`,
      'endpoint_not_served',
    )
  }
  if (!(await authorized(request, config))) return proxyError(provider, 401, 'This request may not use the model.')
  const read = await readLimitedJson(request, config.maxBodyBytes, config.bodyTimeoutMs)
  if (!read.ok) return proxyError(provider, read.status, read.message)
  const model = read.body['model']
  if (typeof model !== 'string' || !config.models.has(model))
    return proxyError(provider, 403, `The model ${JSON.stringify(model)?.slice(0, 200)} is not one this proxy serves.`)
  const checked = endpoint === 'chat' ? checkedChat(read.body, config) : read.body
  if (typeof checked === 'string') return proxyError(provider, 400, checked)
  const toolRefusal = endpoint === 'chat' ? refusedTools(checked, config.tools) : undefined
  if (toolRefusal) return proxyError(provider, 403, toolRefusal)
  const body = JSON.stringify(config.onUsage ? askForUsage(checked, provider) : checked)
  let upstream: Response
  try {
    upstream = await fetch(config.upstream[endpoint]!, {
      method: 'POST',
      headers: headersForProvider(provider, request, config.keyHeader),
      body,
      signal: request.signal,
      redirect: 'manual',
    })
  } catch (error) {
    if (request.signal.aborted) return new Response(null, { status: 499 })
    return proxyError(provider, 502, `The model proxy could not reach the provider: ${scrubKey(String(error), apiKey)}`)
  }
  const cap = endpoint === 'chat' ? outputLimit(checked, api.tokenFields) : 0
  return relay(upstream, {
    provider,
    apiKey,
    bodyTimeoutMs: config.bodyTimeoutMs,
    onEnd: (usage, whole) => report(config, request, model, counted(usage, whole, cap, body)),
  })
}

function endpointOf(pathname: string, config: ProxyConfig): EndpointName | undefined {
  const path = pathname.replace(/\/+$/, '')
  return (Object.keys(config.upstream) as EndpointName[]).find((endpoint) =>
    path.endsWith(`/${config.api.endpoints[endpoint]}`),
  )
}

async function authorized(request: Request, config: ProxyConfig): Promise<boolean> {
  if (!config.authorize) return true
  try {
    return (await config.authorize(request)) === true
  } catch (error) {
    console.error('createModelProxy: authorize failed; the request was refused', error)
    return false
  }
}

/** A chat body capped to one completion of at most maxTokens, with the server's system prompt first. */
function checkedChat(body: Record<string, unknown>, config: ProxyConfig): Record<string, unknown> | string {
  const capped = capOutput(body, config.api.tokenFields, config.maxTokens)
  if (typeof capped === 'string' || config.system === undefined) return capped
  return withSystem(capped, config.provider, config.system)
}

/** The usage to report: as read when the answer came whole; else the most it could have cost. */
function counted(usage: TokenCount | undefined, whole: boolean, cap: number | undefined, body: string): TokenCount {
  const inputTokens = usage?.inputTokens ?? Math.ceil(new TextEncoder().encode(body).length / 4)
  const read = usage?.outputTokens
  const outputTokens = whole && read !== undefined ? read : Math.max(read ?? 0, cap ?? 0)
  return { inputTokens, outputTokens }
}

function report(config: ProxyConfig, request: Request, model: string, usage: TokenCount): void {
  if (!config.onUsage) return
  const failed = (error: unknown) => console.error('createModelProxy: onUsage failed', error)
  try {
    // An async onUsage that rejects must not become an unhandled rejection that ends the process.
    Promise.resolve(config.onUsage({ ...usage, model }, request) as unknown).catch(failed)
  } catch (error) {
    failed(error)
  }
}
