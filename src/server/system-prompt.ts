import type { ProviderName } from './providers'

/**
 * The chat body with the server's system prompt first. The page's own system messages stay, after
 * it: the chain's advisors add some (retrieved documents, output formats). A system prompt steers the
 * model; it is no wall — what a page can spend is bounded by the models, tools and caps, not by it.
 */
export function withSystem(
  body: Record<string, unknown>,
  provider: ProviderName,
  system: string,
): Record<string, unknown> | string {
  if (provider === 'openai') {
    const messages: unknown = body['messages'] ?? []
    if (!Array.isArray(messages)) return 'messages must be an array.'
    return { ...body, messages: [{ role: 'system', content: system }, ...(messages as unknown[])] }
  }
  if (provider === 'openai-responses') {
    const own = body['instructions']
    if (own !== undefined && own !== null && typeof own !== 'string') return 'instructions must be a string.'
    return { ...body, instructions: own ? `${system}\n\n${own}` : system }
  }
  const own: unknown = body['system']
  if (own === undefined || own === null || own === '') return { ...body, system }
  if (typeof own === 'string') return { ...body, system: [text(system), text(own)] }
  if (Array.isArray(own)) return { ...body, system: [text(system), ...(own as unknown[])] }
  return 'system must be a string or an array of text blocks.'
}

const text = (value: string) => ({ type: 'text', text: value })
