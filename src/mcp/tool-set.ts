import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { Tool } from '@modelcontextprotocol/sdk/types.js'
import type { ToolCallback, ToolSource } from '../core'
import { Redactor, type RedactionRules } from '../trace'
import { McpConnection } from './connection'
import { mcpTool } from './mcp-tool'
import { secretRules } from './secrets'
import { schemaProblem } from './tool-schema'

export interface McpToolsOptions {
  /** Sent with every request, e.g. `{ Authorization: 'Bearer …' }`; the values are masked in traces and errors. */
  headers?: Record<string, string>
  /** Tool names become `${prefix}${name}` (default: the server's names), e.g. to keep two servers apart. */
  prefix?: string
  fetch?: typeof fetch
  /** A tool result longer than this many characters becomes an `Error:` response (default 100,000). */
  maxResultLength?: number
  /** How long one call may wait for its result; progress from the server restarts the wait (default 60,000 ms). */
  timeoutMs?: number
}

/** A tool the server lists that is not offered to the model, and why. */
export interface SkippedMcpTool {
  name: string
  reason: string
}

export interface McpToolSet {
  /** The server's tools as of the last listing; a new array after each change. */
  readonly tools: ToolCallback[]
  /** The server, as the trace names it. */
  readonly server: ToolSource
  /** Tools left out of `tools` because the model could not be offered them (a malformed schema, a bad name). */
  readonly skipped: readonly SkippedMcpTool[]
  /**
   * Masks this set's secrets (header values); give it to an ObserverAdvisor's `redact`, so a secret
   * that the model echoes in tool arguments is masked too. Results and errors are masked already.
   */
  readonly redaction: RedactionRules
  /** Lists the server's tools again. */
  refresh(): Promise<void>
  /** Ends the session (and stops listening for list changes). */
  close(): Promise<void>
  /** Calls `listener` after each change of `tools`; returns the unsubscribe function. */
  onChange(listener: () => void): () => void
  /**
   * `tools` with this set's earlier tools replaced by its current ones. A ToolCallingAdvisor
   * subclass returns it from `doBeforeCall`, so a list change reaches the next round of a turn.
   */
  latest(tools: readonly ToolCallback[]): ToolCallback[]
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/
const MAX_LIST_PAGES = 100

/** Connects to an MCP server and offers its tools as ToolCallbacks; list changes refresh them. */
export async function mcpTools(server: string | URL | Client, options: McpToolsOptions = {}): Promise<McpToolSet> {
  const url = typeof server === 'string' || server instanceof URL ? parseUrl(server) : undefined
  const headers = { ...options.headers }
  const redaction = secretRules(headers, url)
  const set = new ToolSet(options, redaction)
  const connection = await McpConnection.open(url ?? (server as Client), {
    headers,
    redactor: set.redactor,
    onToolsChanged: () => void set.refresh().catch((error: unknown) => set.refreshFailed(error)),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  })
  try {
    await set.attach(connection, url)
  } catch (error) {
    await connection.close()
    throw error
  }
  return set
}

class ToolSet implements McpToolSet {
  tools: ToolCallback[] = []
  skipped: SkippedMcpTool[] = []
  server: ToolSource = { kind: 'mcp', name: '' }
  #connection!: McpConnection
  readonly #ours = new WeakSet<ToolCallback>()
  readonly #listeners = new Set<() => void>()
  #refreshing: Promise<void> | undefined
  #again = false
  #closed = false
  readonly redactor: Redactor

  constructor(
    private readonly options: McpToolsOptions,
    readonly redaction: RedactionRules,
  ) {
    this.redactor = new Redactor(redaction)
  }

  async attach(connection: McpConnection, url: URL | undefined): Promise<void> {
    this.#connection = connection
    this.server = { kind: 'mcp', name: connection.serverName, ...(url ? { url: publicUrl(url) } : {}) }
    try {
      await this.#list()
    } catch (error) {
      throw new Error(`The MCP server at ${connection.host} did not list its tools: ${connection.describe(error)}`)
    }
  }

  /** Overlapping refreshes (a burst of notifications) run one after the other, the last one last. */
  refresh(): Promise<void> {
    if (this.#refreshing) {
      this.#again = true
      return this.#refreshing
    }
    this.#refreshing = (async () => {
      try {
        do {
          this.#again = false
          await this.#list()
        } while (this.#again)
      } finally {
        this.#refreshing = undefined
      }
    })()
    return this.#refreshing
  }

  refreshFailed(error: unknown): void {
    if (this.#closed) return
    console.warn(
      `The tool list of the MCP server ${this.#connection.host} changed, but could not be read again: ${this.#connection.describe(error)}`,
    )
  }

  close(): Promise<void> {
    this.#closed = true
    this.#listeners.clear()
    return this.#connection.close()
  }

  onChange(listener: () => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  latest(tools: readonly ToolCallback[]): ToolCallback[] {
    const at = tools.findIndex((tool) => this.#ours.has(tool))
    if (at < 0) return [...tools]
    const others = tools.filter((tool) => !this.#ours.has(tool))
    const before = tools.slice(0, at).filter((tool) => !this.#ours.has(tool)).length
    return [...others.slice(0, before), ...this.tools, ...others.slice(before)]
  }

  async #list(): Promise<void> {
    const listed = await this.#connection.request(async (client) => {
      const all: Tool[] = []
      let cursor: string | undefined
      for (let page = 0; page < MAX_LIST_PAGES; page++) {
        const result = await client.listTools(cursor === undefined ? undefined : { cursor })
        all.push(...result.tools)
        cursor = result.nextCursor
        if (cursor === undefined) break
      }
      return all
    })
    const tools: ToolCallback[] = []
    const skipped: SkippedMcpTool[] = []
    const prefix = this.options.prefix ?? ''
    for (const tool of listed) {
      const name = prefix + tool.name
      const problem = TOOL_NAME.test(name)
        ? await schemaProblem(tool.inputSchema)
        : `its name '${name}' is not accepted by model APIs (1–64 letters, digits, '_' or '-'; a prefix must keep to them too)`
      if (problem !== undefined) {
        skipped.push({ name, reason: this.redactor.text(problem) })
        continue
      }
      const callback = mcpTool(tool, {
        name,
        connection: this.#connection,
        source: this.server,
        redactor: this.redactor,
        maxResultLength: this.options.maxResultLength ?? 100_000,
        timeoutMs: this.options.timeoutMs ?? 60_000,
      })
      this.#ours.add(callback)
      tools.push(callback)
    }
    this.tools = tools
    this.skipped = skipped
    for (const listener of this.#listeners) listener()
  }
}

function parseUrl(server: string | URL): URL {
  const url = URL.canParse(String(server)) ? new URL(server) : undefined
  if (url?.protocol === 'http:' || url?.protocol === 'https:') return url
  throw new TypeError('mcpTools needs the absolute http(s) URL of an MCP server, e.g. http://localhost:3001/mcp')
}

/** The URL as the trace may show it: no credentials, query or fragment. */
function publicUrl(url: URL): string {
  return `${url.origin}${url.pathname}`
}
