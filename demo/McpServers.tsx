import type { RedactionRules, ToolCallback } from 'advisor-chain'
import type { McpToolSet } from 'advisor-chain/mcp'
import { useEffect, useMemo, useReducer, useState } from 'react'

/** The tools of the connected servers, current after each list change, and the masking for their secrets. */
export function useMcpTools(sets: McpToolSet[]): { tools: ToolCallback[]; redact: RedactionRules } {
  const [version, changed] = useReducer((count: number) => count + 1, 0)
  useEffect(() => {
    const stops = sets.map((set) => set.onChange(changed))
    return () => stops.forEach((stop) => stop())
  }, [sets])
  return useMemo(
    () => ({
      tools: sets.flatMap((set) => set.tools),
      redact: { values: sets.flatMap((set) => set.redaction.values ?? []) },
    }),
    // `version` changes when a server's list does; the sets array stays the same then.
    [sets, version],
  )
}

/** Adds MCP servers by URL; their tools join the demo's tools on the next message. */
export function McpServers({ sets, onChange }: { sets: McpToolSet[]; onChange: (sets: McpToolSet[]) => void }) {
  const [url, setUrl] = useState('http://localhost:3001/mcp')
  const [token, setToken] = useState('')
  const [connecting, setConnecting] = useState(false)
  const [error, setError] = useState<string>()

  const add = async () => {
    setConnecting(true)
    setError(undefined)
    try {
      // Loaded on first use: a page that never adds a server never downloads the MCP SDK.
      const { mcpTools } = await import('advisor-chain/mcp')
      const set = await mcpTools(url, token ? { headers: { Authorization: `Bearer ${token}` } } : {})
      onChange([...sets, set])
      setToken('')
    } catch (thrown) {
      setError((thrown as Error).message)
    } finally {
      setConnecting(false)
    }
  }
  const remove = (set: McpToolSet) => {
    void set.close()
    onChange(sets.filter((candidate) => candidate !== set))
  }

  return (
    <>
      <h3>MCP servers</h3>
      <p className="hint">
        Tools of a Model Context Protocol server (Streamable HTTP or HTTP+SSE). The server must allow this page's origin
        (CORS).
      </p>
      <form
        className="form"
        onSubmit={(event) => {
          event.preventDefault()
          void add()
        }}
      >
        <label>
          Server URL
          <input value={url} onChange={(event) => setUrl(event.target.value)} required type="url" />
        </label>
        <label>
          Bearer token <span className="muted">(optional, never traced)</span>
          <input value={token} onChange={(event) => setToken(event.target.value)} type="password" />
        </label>
        <button type="submit" className="primary" disabled={connecting}>
          {connecting ? 'Connecting…' : 'Add server'}
        </button>
        {error !== undefined && (
          <p className="error-text" role="alert" data-testid="mcp-error">
            {error}
          </p>
        )}
      </form>
      {sets.map((set) => (
        <div key={set.server.url ?? set.server.name} data-testid="mcp-server">
          <p>
            <strong>{set.server.name}</strong> <span className="muted">{set.server.url}</span>{' '}
            <button type="button" onClick={() => remove(set)}>
              Remove
            </button>
          </p>
          {set.tools.map((tool) => (
            <details key={tool.definition.name} className="tool" data-testid="mcp-tool">
              <summary>
                <code>{tool.definition.name}</code>
                <span className="muted">{tool.definition.description}</span>
              </summary>
              <pre>{JSON.stringify(tool.definition.inputSchema, null, 2)}</pre>
            </details>
          ))}
          {set.skipped.map((tool) => (
            <p key={tool.name} className="hint warning-text">
              <code>{tool.name}</code> is not offered: {tool.reason}
            </p>
          ))}
        </div>
      ))}
    </>
  )
}
