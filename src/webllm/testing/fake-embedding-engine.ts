import type { CreateEmbeddingResponse, EmbeddingCreateParams } from '@mlc-ai/web-llm'
import type { WebLLMEmbeddingEngine } from '../embedding'

// A test double of WebLLM's embeddings API, typed by WebLLM's own request and response types (it
// fails to compile if they change). Each text becomes [its length, 1]; `fail` makes a call throw as
// WebLLM does through a worker (an error named in a string).

export class FakeEmbeddingEngine implements WebLLMEmbeddingEngine {
  readonly requests: EmbeddingCreateParams[] = []

  constructor(
    private readonly options: { fail?: (request: EmbeddingCreateParams) => string | undefined; pending?: boolean } = {},
  ) {}

  readonly embeddings = {
    create: async (request: EmbeddingCreateParams): Promise<CreateEmbeddingResponse> => {
      this.requests.push(structuredClone(request))
      const failure = this.options.fail?.(request)
      if (failure) throw new Error(failure)
      if (this.options.pending) await new Promise(() => {})
      const input = Array.isArray(request.input) ? (request.input as string[]) : [request.input]
      return {
        object: 'list',
        model: request.model ?? 'snowflake-arctic-embed-s-q0f32-MLC-b4',
        data: input.map((text, index) => ({ object: 'embedding', index, embedding: [text.length, 1] })),
        usage: { prompt_tokens: input.length, total_tokens: input.length, extra: { prefill_tokens_per_s: 1000 } },
      }
    },
  }
}
