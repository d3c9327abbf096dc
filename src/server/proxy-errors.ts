import type { ProviderName } from './providers'

/** An error answer in the shape the page's adapter reads for this provider. */
export function proxyError(provider: ProviderName, status: number, message: string, code?: string): Response {
  const type = status >= 500 ? 'proxy_error' : 'invalid_request_error'
  const body =
    provider === 'anthropic'
      ? { type: 'error', error: { type, message } }
      : { error: { message, type, code: code ?? null } }
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })
}
