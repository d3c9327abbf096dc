/** The APIs the proxy speaks: where each endpoint lives, which fields cap output, how the key is sent. */
export type ProviderName = 'openai' | 'openai-responses' | 'anthropic'
export type EndpointName = 'chat' | 'embeddings'

export interface Provider {
  /** The default base URL: the provider's public API. */
  baseURL: string
  /** Each endpoint the API has, as the end of the route's path (and of the upstream URL). */
  endpoints: Partial<Record<EndpointName, string>>
  /** The output-token limits a chat request of this API can carry; the first is set when none is. */
  tokenFields: readonly string[]
  /** The header that carries the key to `host`. */
  keyHeader(apiKey: string, host: string): Record<string, string>
}

/** Azure OpenAI takes its keys in `api-key`, not as a bearer token. */
const AZURE_HOST = /\.(openai\.azure\.com|cognitiveservices\.azure\.com|services\.ai\.azure\.com)$/i

const openAIKey = (apiKey: string, host: string): Record<string, string> =>
  AZURE_HOST.test(host) ? { 'api-key': apiKey } : { authorization: `Bearer ${apiKey}` }

export const PROVIDERS: Readonly<Record<ProviderName, Provider>> = {
  openai: {
    baseURL: 'https://api.openai.com/v1',
    endpoints: { chat: 'chat/completions', embeddings: 'embeddings' },
    tokenFields: ['max_completion_tokens', 'max_tokens'],
    keyHeader: openAIKey,
  },
  'openai-responses': {
    baseURL: 'https://api.openai.com/v1',
    endpoints: { chat: 'responses', embeddings: 'embeddings' },
    tokenFields: ['max_output_tokens'],
    keyHeader: openAIKey,
  },
  anthropic: {
    baseURL: 'https://api.anthropic.com',
    endpoints: { chat: 'v1/messages' },
    tokenFields: ['max_tokens'],
    keyHeader: (apiKey) => ({ 'x-api-key': apiKey }),
  },
}

/** The provider of that name, own names only (`toString` is not a provider). */
export function providerNamed(name: unknown): Provider | undefined {
  return typeof name === 'string' && Object.hasOwn(PROVIDERS, name) ? PROVIDERS[name as ProviderName] : undefined
}

/**
 * The endpoint's URL under `baseURL`, which keeps its path and its query:
 * `https://x.openai.azure.com/openai/deployments/d?api-version=1` → `…/deployments/d/chat/completions?api-version=1`.
 */
export function endpointURL(baseURL: URL, endpoint: string): URL {
  const url = new URL(baseURL)
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/${endpoint}`
  return url
}
