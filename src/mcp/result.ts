import type { CallToolResult, CompatibilityCallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js'

// Tool responses are text: images, audio and binary resources are described, not inlined, so a
// screenshot does not fill the model's context with base64.

/** The text a model gets for a tool result: the text content joined, other content described. */
export function resultText(result: CallToolResult | CompatibilityCallToolResult): string {
  // Servers of the 2024-10-07 protocol answer with a bare `toolResult`.
  if (!Array.isArray(result.content)) return JSON.stringify(result.toolResult ?? null)
  const parts = result.content.map(describeContent)
  if (parts.length === 0 && result.structuredContent !== undefined) return JSON.stringify(result.structuredContent)
  return parts.join('\n')
}

function describeContent(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text
    case 'image':
    case 'audio':
      return `[${block.type}: ${block.mimeType}, ${base64Bytes(block.data)} bytes]`
    case 'resource_link': {
      const about = [block.mimeType, block.description].filter(Boolean).join(', ')
      return `[resource link: ${block.name} <${block.uri}>${about ? ` (${about})` : ''}]`
    }
    case 'resource': {
      const resource = block.resource
      if ('text' in resource) return `[resource <${resource.uri}>]\n${resource.text}`
      return `[resource <${resource.uri}>: ${resource.mimeType ?? 'binary'}, ${base64Bytes(resource.blob)} bytes]`
    }
    default:
      return `[${(block as { type: string }).type} content]`
  }
}

function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0
  return Math.floor((data.length * 3) / 4) - padding
}

/** `text` cut to at most `max` characters (`max` at least 50), its end saying how long it was. */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text
  const note = `… (cut from ${text.length} characters)`
  return text.slice(0, max - note.length) + note
}

const TRACED_STRING_LENGTH = 2000

/** A copy of an MCP message for the trace: long strings (base64 images, big texts) are cut. */
export function forTrace(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') {
    return value.length > TRACED_STRING_LENGTH
      ? `${value.slice(0, TRACED_STRING_LENGTH)}… (${value.length} characters)`
      : value
  }
  if (value === null || typeof value !== 'object' || depth > 12) return value
  if (Array.isArray(value)) return value.map((item) => forTrace(item, depth + 1))
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, forTrace(item, depth + 1)]))
}
