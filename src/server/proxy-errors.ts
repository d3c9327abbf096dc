/** An error answer in the shape the page's adapter reads for this provider. */
export function proxyError(
  provider: 'openai' | 'openai-responses' | 'anthropic',
  status: number,
  message: string,
): Response {
  const type = status >= 500 ? 'proxy_error' : 'invalid_request_error'
  const body =
    provider === 'anthropic' ? { type: 'error', error: { type, message } } : { error: { message, type, code: null } }
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })
}

/** `text` without the key, wherever a provider or a network error echoes it. */
export function scrubKey(text: string, apiKey: string): string {
  return apiKey.length >= 4 ? text.split(apiKey).join('[redacted]') : text
}
