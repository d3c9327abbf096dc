import { scrubKey } from './key-scrubber'
import type { ProviderName } from './providers'

/**
 * Headers of the page's request the provider may see. Everything else (cookies, the page's own
 * authorization, forwarding headers) stays here; the key is added by the proxy.
 */
const FROM_PAGE: Readonly<Record<ProviderName, readonly string[]>> = {
  openai: [],
  'openai-responses': [],
  anthropic: ['anthropic-beta'],
}

/**
 * Headers of the provider's answer the page may see, their values without the key. The body is
 * decoded already, so no encoding or length; no cookies, no redirects' locations.
 */
const TO_PAGE =
  /^(content-type|retry-after|retry-after-ms|x-should-retry|x-request-id|request-id|openai-processing-ms|x-ratelimit-[a-z-]+|anthropic-ratelimit-[a-z-]+)$/i

export function headersForProvider(
  provider: ProviderName,
  request: Request,
  keyHeader: Record<string, string>,
): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (provider === 'anthropic') headers['anthropic-version'] = request.headers.get('anthropic-version') ?? '2023-06-01'
  for (const name of FROM_PAGE[provider]) {
    const value = request.headers.get(name)
    if (value) headers[name] = value
  }
  return { ...headers, ...keyHeader }
}

export function headersForPage(answer: Response, apiKey: string): Headers {
  const headers = new Headers()
  answer.headers.forEach((value, name) => {
    if (TO_PAGE.test(name)) headers.set(name, scrubKey(value, apiKey))
  })
  return headers
}
