import type { ToolCallback } from '../core'
import { defineTool } from '../tools'
import { DEFAULT_TOP_K, type VectorStore } from './vector-store'

export interface RetrievalToolOptions {
  /** Default `search_documents`. */
  name?: string
  description?: string
  /** How many documents a search answers with at most (default 4). */
  topK?: number
}

const INPUT_SCHEMA = {
  type: 'object',
  properties: {
    query: { type: 'string', minLength: 1, description: 'What to look for, in a few words or a question' },
  },
  required: ['query'],
  additionalProperties: false,
} as const

/**
 * The vector store as a tool, for an agent that decides itself when and what to look up inside
 * the tool loop. It answers with the documents as JSON, best first; the trace records them as the
 * call's detail.
 */
export function retrievalTool(store: VectorStore, options: RetrievalToolOptions = {}): ToolCallback {
  if (typeof store?.search !== 'function')
    throw new TypeError('retrievalTool needs a vector store: an object with search(query)')
  const topK = options.topK ?? DEFAULT_TOP_K
  return defineTool({
    name: options.name ?? 'search_documents',
    description:
      options.description ??
      "Searches the user's documents for passages about a query; answers with the best matches, their ids and scores.",
    inputSchema: INPUT_SCHEMA,
    async execute({ query }, context) {
      const documents = await store.search({ text: query, topK, ...(context.signal ? { signal: context.signal } : {}) })
      const found = documents.map(({ id, score, text, metadata }) => ({
        id,
        score: Math.round(score * 1000) / 1000,
        text,
        ...(metadata ? { metadata } : {}),
      }))
      context.report?.({ query, documents: found })
      return found.length === 0 ? 'No document matches the query.' : JSON.stringify(found)
    },
  })
}
