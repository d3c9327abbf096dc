// The key stays here, on the server; the page's OpenAIChatModel has baseURL '/api/openai'. The
// server fixes the system prompt and the one tool a page may send, and serves embeddings too.
import { createModelProxy } from 'advisor-chain/server'

export const POST = createModelProxy({
  provider: 'openai',
  apiKey: process.env.OPENAI_API_KEY ?? '',
  baseURL: process.env.OPENAI_BASE_URL,
  models: ['mock-model', 'mock-embedding'],
  maxTokens: 512,
  maxBodyBytes: 256 * 1024,
  endpoints: ['chat', 'embeddings'],
  system: 'You are the weather assistant of this app.',
  tools: ['get_weather'],
})
