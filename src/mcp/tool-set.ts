import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { Tool } from '@modelcontextprotocol/sdk/types.js'
import { wholeNumber, type ToolCallback, type ToolSource } from '../core'
import { Redactor, type RedactionRules } from '../trace'
import { McpConnection } from './connection'
import { judgeListing } from './listed-tool'
import { mcpTool } from './mcp-tool'
import { cut } from './result'
import { secretRules } from './secrets'
import { listedEntries } from './tool-listing'

export interface McpToolsOptions {
  /** Sent with every request, e.g. `{ Authorization: 'Bearer …' }`; the values are masked in traces and errors. */
  headers?: Record<string, string>
  /** Tool names become `${prefix}${name}` (default: the server's names), e.g. to keep two servers apart. */
  prefix?: string
  fetch?: typeof fetch
  /**
   * The most characters of the server's text the model reads at once (default 100,000): a longer
   * result becomes an `Error:` response, a longer error is cut, a tool whose description and input
   * schema are longer is skipped.
   */
  maxResultLength?: number
  /**
   * How long the set waits for the server (default 60,000 ms): for a call's result (progress from
   * the server restarts the wait), for the whole tool list, to connect (at most 15 s), to end the session.
   */
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

/** Connects to an MCP server and offers its tools as ToolCallbacks; list changes refresh them. */
export async function mcpTools(server: string | URL | Client, options: McpToolsOptions = {}): Promise<McpToolSet> {
  const url = typeof server === 'string' || server instanceof URL ? parseUrl(server) : undefined
  const headers = { ...options.headers }
  const redaction = secretRules(headers, url)
  const limits = {
    maxResultLength: wholeNumber('maxResultLength', options.maxResultLength ?? 100_000, 100),
    timeoutMs: wholeNumber('timeoutMs', options.timeoutMs ?? 60_000, 1),
  }
  const set = new ToolSet(options.prefix ?? '', limits, redaction)
  const connection = await McpConnection.open(url ?? (server as Client), {
    headers,
    redactor: set.redactor,
    onToolsChanged: () => void set.refresh().catch((error: unknown) => set.refreshFailed(error)),
    timeoutMs: limits.timeoutMs,
    maxLength: limits.maxResultLength,
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
    private readonly prefix: string,
    private readonly limits: { maxResultLength: number; timeoutMs: number },
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
      const reason = cut(connection.describe(error), this.limits.maxResultLength)
      throw new Error(`The MCP server at ${connection.host} did not list its tools: ${reason}`)
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
      `The tool list of the MCP server ${this.#connection.host} changed, but could not be read again: ${cut(this.#connection.describe(error), this.limits.maxResultLength)}`,
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

  /** One tool list, read within the timeout; every tool is judged on its own, a bad one is skipped. */
  async #list(): Promise<void> {
    const { maxResultLength, timeoutMs } = this.limits
    const listed = await this.#connection.request(async (client) => {
      const judged = await judgeListing(await listedEntries(client, timeoutMs), {
        prefix: this.prefix,
        maxLength: maxResultLength,
      })
      rememberTools(
        client,
        judged.flatMap((entry) => ('tool' in entry ? [entry.tool] : [])),
      )
      return judged
    })
    const tools: ToolCallback[] = []
    const skipped: SkippedMcpTool[] = []
    for (const entry of listed) {
      if (!('tool' in entry)) {
        skipped.push({ name: this.redactor.text(entry.name), reason: this.redactor.text(entry.reason) })
        continue
      }
      const settings = { connection: this.#connection, source: this.server, redactor: this.redactor }
      const callback = mcpTool(entry.tool, { ...settings, name: entry.name, maxResultLength, timeoutMs })
      this.#ours.add(callback)
      tools.push(callback)
    }
    this.tools = tools
    this.skipped = skipped
    for (const listener of this.#listeners) listener()
  }
}

/**
 * What the SDK's own `listTools` keeps of the tools it listed (their output schemas' validators,
 * which need task calls), kept for the tools that passed: calls then check results as before.
 */
function rememberTools(client: Client, tools: Tool[]): void {
  ;(client as unknown as { cacheToolMetadata?(tools: Tool[]): void }).cacheToolMetadata?.(tools)
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
