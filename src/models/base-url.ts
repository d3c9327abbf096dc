/** A readable name for a server in messages: 'OpenAI' for OpenAI itself, else the base URL's host. */
export function labelOf(baseURL: string): string {
  try {
    const host = new URL(baseURL).host
    return host === 'api.openai.com' ? 'OpenAI' : host
  } catch {
    return baseURL
  }
}
