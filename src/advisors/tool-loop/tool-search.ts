import {
  type CallAdvisorChain,
  type ChatClientRequest,
  type StreamAdvisorChain,
  type ToolCallback,
  wholeNumber,
} from '../../core'
import { defineTool } from '../../tools'
import { ToolCallingAdvisor, ToolCallingAdvisorBuilder, type ToolCallingAdvisorOptions } from './tool-calling'

export interface ToolSearchOptions extends ToolCallingAdvisorOptions {
  /** How many tools one search returns (default 5). */
  maxResults?: number
  /** Scores a tool for a query; the default matches query words against the name and description. */
  score?: (query: string, tool: ToolCallback) => number
}

export const TOOL_SEARCH_NAME = 'tool_search'

/** The tools of one run: the whole catalogue, and the ones the model found so far. */
interface Discovery {
  catalogue: ReadonlyMap<string, ToolCallback>
  found: Map<string, ToolCallback>
  search: ToolCallback
}

/**
 * The tool loop for large tool sets: the model first sees only a search tool; the tools it finds
 * are offered from the next round on, and stay offered for the rest of the run (also with the
 * loop's history off, where the search results are no longer in the messages — Spring AI #7034).
 */
export class ToolSearchToolCallingAdvisor extends ToolCallingAdvisor {
  override readonly name: string = 'Tool Search Tool Calling Advisor'
  readonly #maxResults: number
  readonly #score: (query: string, tool: ToolCallback) => number
  readonly #discoveries = new WeakMap<ToolCallback, Discovery>()

  constructor(options: ToolSearchOptions = {}) {
    super(options)
    this.#maxResults = wholeNumber('maxResults', options.maxResults ?? 5, 1)
    this.#score = options.score ?? keywordScore
  }

  static override builder(): ToolSearchToolCallingAdvisorBuilder {
    return new ToolSearchToolCallingAdvisorBuilder()
  }

  protected override async doInitializeLoop(
    request: ChatClientRequest,
    _chain: CallAdvisorChain,
  ): Promise<ChatClientRequest> {
    return this.#initialize(request)
  }

  protected override async doInitializeLoopStream(
    request: ChatClientRequest,
    _chain: StreamAdvisorChain,
  ): Promise<ChatClientRequest> {
    return this.#initialize(request)
  }

  protected override async doBeforeCall(
    request: ChatClientRequest,
    _chain: CallAdvisorChain,
  ): Promise<ChatClientRequest> {
    return this.#offerFound(request)
  }

  protected override async doBeforeStream(
    request: ChatClientRequest,
    _chain: StreamAdvisorChain,
  ): Promise<ChatClientRequest> {
    return this.#offerFound(request)
  }

  /** Replaces the catalogue with a search tool that knows it. */
  #initialize(request: ChatClientRequest): ChatClientRequest {
    const tools = request.prompt.options.tools ?? []
    if (tools.length === 0) return request
    const catalogue = new Map(tools.map((tool) => [tool.definition.name, tool]))
    const found = new Map<string, ToolCallback>()
    const search = this.#searchTool(catalogue, found)
    this.#discoveries.set(search, { catalogue, found, search })
    return { ...request, prompt: { ...request.prompt, options: { ...request.prompt.options, tools: [search] } } }
  }

  /** Each round offers the search tool and every tool found so far. */
  #offerFound(request: ChatClientRequest): ChatClientRequest {
    const search = request.prompt.options.tools?.find((tool) => this.#discoveries.has(tool))
    const discovery = search && this.#discoveries.get(search)
    if (!discovery) return request
    const offered = [discovery.search, ...discovery.found.values()]
    if (offered.length === request.prompt.options.tools!.length) return request
    return { ...request, prompt: { ...request.prompt, options: { ...request.prompt.options, tools: offered } } }
  }

  #searchTool(catalogue: ReadonlyMap<string, ToolCallback>, found: Map<string, ToolCallback>): ToolCallback {
    return defineTool({
      name: TOOL_SEARCH_NAME,
      description: `Finds tools for a task among ${catalogue.size} available tools. Call it with a few keywords; the tools it returns can be called from then on.`,
      inputSchema: {
        type: 'object',
        properties: { query: { type: 'string', description: 'Keywords describing what the tool should do' } },
        required: ['query'],
      } as const,
      execute: ({ query }) => {
        const matches = [...catalogue.values()]
          .map((tool) => ({ tool, score: this.#score(query, tool) }))
          .filter((match) => match.score > 0)
          .sort((a, b) => b.score - a.score)
          .slice(0, this.#maxResults)
        for (const { tool } of matches) found.set(tool.definition.name, tool)
        if (matches.length === 0) return `No tool matches "${query}". Try other keywords.`
        return { tools: matches.map(({ tool }) => tool.definition) }
      },
    })
  }
}

export class ToolSearchToolCallingAdvisorBuilder extends ToolCallingAdvisorBuilder<ToolSearchToolCallingAdvisor> {
  #extra: Pick<ToolSearchOptions, 'maxResults' | 'score'> = {}

  constructor() {
    super((options) => new ToolSearchToolCallingAdvisor({ ...options, ...this.#extra }))
  }

  maxResults(count: number): this {
    this.#extra.maxResults = count
    return this
  }

  score(score: (query: string, tool: ToolCallback) => number): this {
    this.#extra.score = score
    return this
  }
}

/** Counts the query words found in the tool's name and description. */
function keywordScore(query: string, tool: ToolCallback): number {
  const haystack = `${tool.definition.name.replace(/[_-]/g, ' ')} ${tool.definition.description}`.toLowerCase()
  return words(query).filter((word) => haystack.includes(word)).length
}

function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 1)
}
