import { AnthropicChatModel, OpenAIChatModel, type ChatModel } from 'advisor-chain'
import { WebLLMChatModel, type LoadProgress } from 'advisor-chain/webllm'
import { scriptedDemoModel } from './scripted-demo'

export type ModelChoice =
  | { kind: 'scripted' }
  | { kind: 'webllm'; modelId: string }
  | { kind: 'prompt-api' }
  | { kind: 'wllama'; name: string }
  | { kind: 'openai'; baseURL: string; model: string; apiKey: string }
  | { kind: 'anthropic'; model: string; apiKey: string }
  /** A model an end-to-end test installed through the test harness. */
  | { kind: 'installed'; label: string }

/** A few WebLLM models good for tool calling, with the GPU memory WebLLM lists for them (no runtime needed to show them). */
export const recommendedWebLLMModels = [
  { id: 'Qwen3-1.7B-q4f16_1-MLC', vramMB: 2037, note: 'good first choice for tools' },
  { id: 'Qwen3-4B-q4f16_1-MLC', vramMB: 3432, note: 'best tool calling of the small ones' },
  { id: 'Qwen3-0.6B-q4f16_1-MLC', vramMB: 1403, note: 'small GPUs; tools less reliable' },
  { id: 'Llama-3.2-3B-Instruct-q4f16_1-MLC', vramMB: 2264, note: 'general chat' },
  { id: 'Hermes-3-Llama-3.1-8B-q4f16_1-MLC', vramMB: 4876, note: 'native tool calling, large' },
]

export const openAICompatiblePresets = [
  { name: 'OpenAI', baseURL: 'https://api.openai.com/v1', model: 'gpt-4o-mini' },
  { name: 'Groq', baseURL: 'https://api.groq.com/openai/v1', model: 'openai/gpt-oss-120b' },
  { name: 'OpenRouter', baseURL: 'https://openrouter.ai/api/v1', model: 'openai/gpt-4o-mini' },
  { name: 'Mistral', baseURL: 'https://api.mistral.ai/v1', model: 'mistral-small-latest' },
  {
    name: 'Gemini (OpenAI-compatible)',
    baseURL: 'https://generativelanguage.googleapis.com/v1beta/openai',
    model: 'gemini-2.5-flash',
  },
  { name: 'Ollama', baseURL: 'http://localhost:11434/v1', model: 'qwen3:4b' },
  { name: 'LM Studio', baseURL: 'http://localhost:1234/v1', model: 'qwen3-4b' },
  { name: 'llama.cpp server', baseURL: 'http://localhost:8080/v1', model: 'default' },
  { name: 'vLLM', baseURL: 'http://localhost:8000/v1', model: 'meta-llama/Llama-3.1-8B-Instruct' },
]

/** A WebLLM model in its own worker (the package's worker entry, built by Vite with the app's own WebLLM). */
export async function webLLMModel(
  modelId: string,
  onProgress: (progress: LoadProgress) => void,
): Promise<WebLLMChatModel> {
  const worker = new Worker(new URL('advisor-chain/webllm/worker', import.meta.url), { type: 'module' })
  try {
    return await WebLLMChatModel.create({ model: modelId, worker, onProgress })
  } catch (failure) {
    worker.terminate()
    throw failure
  }
}

/** A remote or scripted model for a choice (a WebLLM model comes from `webLLMModel`). */
export function remoteModel(
  choice: Exclude<ModelChoice, { kind: 'webllm' | 'prompt-api' | 'wllama' | 'installed' }>,
): ChatModel {
  switch (choice.kind) {
    case 'scripted':
      return scriptedDemoModel()
    case 'openai':
      return new OpenAIChatModel({
        baseURL: choice.baseURL,
        model: choice.model,
        ...(choice.apiKey ? { apiKey: choice.apiKey } : {}),
      })
    case 'anthropic':
      return new AnthropicChatModel({ model: choice.model, ...(choice.apiKey ? { apiKey: choice.apiKey } : {}) })
  }
}

export function describeChoice(choice: ModelChoice): string {
  switch (choice.kind) {
    case 'scripted':
      return 'Offline demo — scripted replies'
    case 'webllm':
      return `WebLLM · ${choice.modelId}`
    case 'prompt-api':
      return "Chrome's built-in model"
    case 'wllama':
      return `llama.cpp · ${choice.name}`
    case 'openai':
      return `${new URL(choice.baseURL).host} · ${choice.model}`
    case 'anthropic':
      return `Anthropic · ${choice.model}`
    case 'installed':
      return choice.label
  }
}

const KEYS = 'advisor-chain-demo-keys'

/** API keys stay in this tab only (sessionStorage), and only when the user asks. */
export function rememberedKey(kind: 'openai' | 'anthropic'): string {
  try {
    return (JSON.parse(sessionStorage.getItem(KEYS) ?? '{}') as Record<string, string>)[kind] ?? ''
  } catch {
    return ''
  }
}

export function rememberKey(kind: 'openai' | 'anthropic', key: string): void {
  const keys = JSON.parse(sessionStorage.getItem(KEYS) ?? '{}') as Record<string, string>
  if (key) keys[kind] = key
  else delete keys[kind]
  sessionStorage.setItem(KEYS, JSON.stringify(keys))
}
