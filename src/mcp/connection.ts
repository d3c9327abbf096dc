import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ErrorCode, McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker'
import { abortError } from '../core'
import { ToolCallError } from '../tools'
import type { Redactor } from '../trace'
import { cut } from './result'

export interface ConnectionSettings {
  headers: Record<string, string>
  fetch?: typeof fetch
  /** Masks the set's secrets in every message that leaves this module. */
  redactor: Redactor
  /** Called when the server says its tool list changed. */
  onToolsChanged: () => void
  /** The longest wait for the server: connecting (at most 15 s), a ping, ending the session. */
  timeoutMs: number
  /** The longest text of the server's a message of this module carries (`maxResultLength`). */
  maxLength: number
}

const CLIENT_INFO = { name: 'advisor-chain', version: '0.1.0' }
const CONNECT_TIMEOUT_MS = 15_000
const FIRST_RETRY_MS = 500
const MAX_RETRY_MS = 30_000
const PING_TIMEOUT_MS = 3_000

/**
 * The session with one MCP server. A session that is lost (the server went away, or forgot the
 * session) is replaced by a new one on the next use; failed attempts wait longer each time.
 * A `Client` given by the caller is used as it is and never replaced or closed.
 */
export class McpConnection {
  readonly host: string
  readonly url: URL | undefined
  #client: Client | undefined
  #connecting: Promise<Client> | undefined
  #failures = 0
  #retryAt = 0
  #lastError = ''
  #inFlight = 0
  #checking = false
  #closed = false

  private constructor(
    target: URL | Client,
    private readonly settings: ConnectionSettings,
  ) {
    if (target instanceof URL) {
      this.url = target
      this.host = target.host
    } else {
      this.#client = target
      this.host = target.getServerVersion()?.name ?? 'the given MCP client'
      target.setNotificationHandler(ToolListChangedNotificationSchema, () => settings.onToolsChanged())
      this.#watch(target)
    }
  }

  /** Connects to `target` (a URL) or adopts a connected client; a URL that is no MCP server rejects. */
  static async open(target: URL | Client, settings: ConnectionSettings): Promise<McpConnection> {
    const connection = new McpConnection(target, settings)
    if (target instanceof URL) {
      try {
        connection.#client = await connection.#connect()
      } catch (error) {
        // A server's error may be megabytes long.
        const reason = cut(connection.#describe(error), settings.maxLength)
        throw new Error(
          `Could not connect to an MCP server at ${target.host}: ${reason}. Check that the URL is the server's MCP endpoint (often …/mcp), that the server runs${typeof document === 'undefined' ? '' : ', and that its CORS settings allow this page'}.`,
        )
      }
    } else if (!target.getServerCapabilities()) {
      throw new TypeError('The MCP client given to mcpTools is not connected; call client.connect(transport) first')
    }
    return connection
  }

  /** The server's own name and version, as it introduced itself. */
  get serverName(): string {
    const info = this.#client?.getServerVersion()
    return info ? cut(`${info.name} ${info.version}`, 200) : this.host
  }

  /**
   * Runs `request` on the current session. A session the server no longer knows (HTTP 404) is
   * replaced and the request sent once more; a lost connection is dropped for the next use.
   */
  async request<T>(request: (client: Client) => Promise<T>, signal?: AbortSignal): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const client = await this.#ready(signal)
      this.#inFlight++
      try {
        return await request(client)
      } catch (error) {
        if (signal?.aborted) throw abortError(signal)
        const expired = error instanceof StreamableHTTPError && error.code === 404
        if (expired || isConnectionFailure(error)) this.#lose(client, error)
        if (expired && attempt === 1 && this.url) {
          this.#retryAt = 0
          continue
        }
        throw error
      } finally {
        this.#inFlight--
      }
    }
  }

  /** A readable, masked reason for a failure of this connection, as long as the server made it. */
  describe(error: unknown): string {
    return this.#describe(error)
  }

  async close(): Promise<void> {
    this.#closed = true
    const client = this.#client
    this.#client = undefined
    if (!client || !this.url) {
      client?.removeNotificationHandler(ToolListChangedNotificationSchema.shape.method.value)
      return
    }
    const transport = client.transport
    if (transport instanceof StreamableHTTPClientTransport) {
      // A server that never answers the end of the session is left after the timeout; closing aborts the request.
      let timer: ReturnType<typeof setTimeout> | undefined
      const waited = new Promise((resolve) => (timer = setTimeout(resolve, this.settings.timeoutMs)))
      await Promise.race([transport.terminateSession().catch(() => {}), waited])
      clearTimeout(timer)
    }
    await client.close()
  }

  async #ready(signal?: AbortSignal): Promise<Client> {
    if (this.#closed) throw new ToolCallError(`the MCP tool set of ${this.host} was closed`)
    if (this.#client) return this.#client
    if (!this.url) throw new ToolCallError(`the MCP client for ${this.host} lost its connection (${this.#lastError})`)
    const wait = this.#retryAt - Date.now()
    if (wait > 0) {
      throw new ToolCallError(
        `the MCP server ${this.host} is unreachable (${this.#lastError}); the next reconnect attempt is in ${Math.ceil(wait / 1000)} s`,
      )
    }
    this.#connecting ??= this.#connect(signal).then(
      (client) => {
        this.#failures = 0
        this.#client = client
        return client
      },
      (error: unknown) => {
        this.#failures++
        this.#retryAt = Date.now() + Math.min(FIRST_RETRY_MS * 2 ** (this.#failures - 1), MAX_RETRY_MS)
        this.#lastError = this.#describe(error)
        throw new ToolCallError(`the MCP server ${this.host} is unreachable (${this.#lastError})`)
      },
    )
    try {
      return await this.#connecting
    } finally {
      this.#connecting = undefined
    }
  }

  /** Streamable HTTP first; a 4xx answer means an older server, tried with HTTP+SSE (as the spec says). */
  async #connect(signal?: AbortSignal): Promise<Client> {
    const url = this.url!
    const { headers, fetch } = this.settings
    const timeout = Math.min(this.settings.timeoutMs, CONNECT_TIMEOUT_MS)
    const options = { timeout, ...(signal ? { signal } : {}) }
    const client = this.#newClient()
    try {
      await client.connect(
        new StreamableHTTPClientTransport(url, { requestInit: { headers }, ...(fetch ? { fetch } : {}) }),
        options,
      )
      return client
    } catch (error) {
      // Closing aborts what is still waiting (a silent server keeps its requests open).
      void client.close().catch(() => {})
      if (!(error instanceof StreamableHTTPError && isClientError(error.code))) throw error
      const { SSEClientTransport } = await import('@modelcontextprotocol/sdk/client/sse.js')
      const legacy = this.#newClient()
      try {
        await legacy.connect(
          new SSEClientTransport(url, { requestInit: { headers }, ...(fetch ? { fetch } : {}) }),
          options,
        )
        return legacy
      } catch (fallback) {
        void legacy.close().catch(() => {})
        throw new Error(
          `${this.#describe(error)}; the older HTTP+SSE transport failed too: ${this.#describe(fallback)}`,
        )
      }
    }
  }

  #newClient(): Client {
    const client = new Client(CLIENT_INFO, {
      // The SDK's default validator (ajv) generates code, which a strict CSP forbids.
      jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
      listChanged: { tools: { autoRefresh: false, debounceMs: 50, onChanged: () => this.settings.onToolsChanged() } },
    })
    this.#watch(client)
    return client
  }

  /**
   * A broken stream is reported through `onerror`, while a call waiting on it may wait until its
   * timeout: with calls in flight, a failed ping drops the session, which fails them at once.
   */
  #watch(client: Client): void {
    client.onerror = () => {
      if (this.#inFlight === 0 || this.#checking || client !== this.#client) return
      this.#checking = true
      client
        .ping({ timeout: Math.min(this.settings.timeoutMs, PING_TIMEOUT_MS) })
        .catch((error: unknown) => this.#lose(client, error))
        .finally(() => {
          this.#checking = false
        })
    }
  }

  #lose(client: Client, error: unknown): void {
    if (client !== this.#client) return
    this.#lastError = this.#describe(error)
    if (!this.url) return
    this.#client = undefined
    this.#retryAt = 0
    void client.close().catch(() => {})
  }

  #describe(error: unknown): string {
    const message = isTimeout(error)
      ? `no answer within ${(error.data as { timeout?: number } | undefined)?.timeout} ms`
      : error instanceof Error
        ? error.message
        : String(error)
    return this.settings.redactor.text(message.replace(/^Streamable HTTP error: /, ''))
  }
}

function isClientError(status: number | undefined): boolean {
  return status !== undefined && status >= 400 && status < 500
}

/** Whether the SDK gave up waiting for an answer (its `timeout` option). */
export function isTimeout(error: unknown): error is McpError {
  return error instanceof McpError && error.code === (ErrorCode.RequestTimeout as number)
}

/** Errors that mean the session is gone, not that the tool failed. */
function isConnectionFailure(error: unknown): boolean {
  if (error instanceof TypeError) return true // fetch: the server cannot be reached
  if (error instanceof StreamableHTTPError) return true
  return error instanceof McpError && error.code === (ErrorCode.ConnectionClosed as number)
}
