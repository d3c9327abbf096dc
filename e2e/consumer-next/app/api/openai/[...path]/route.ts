// The key stays here, on the server; the page's OpenAIChatModel has baseURL '/api/openai'.
import { createModelProxy } from 'advisor-chain/server'

export const POST = createModelProxy({
  provider: 'openai',
  apiKey: process.env.OPENAI_API_KEY ?? '',
  baseURL: process.env.OPENAI_BASE_URL,
  models: ['mock-model'],
  maxTokens: 512,
})
