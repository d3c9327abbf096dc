import type { Message, ScriptedReply } from 'advisor-chain'

// The offline demo's answer to a question a QuestionAnswerAdvisor put documents into: it quotes
// the best passage (the first of the context), so the page shows retrieval working without a model.

const CONTEXT = /Context information is below[^\n]*\n\n-{5,}\n([\s\S]*?)\n-{5,}/

export function answerFromDocuments(messages: readonly Message[]): ScriptedReply | undefined {
  const last = messages.at(-1)
  if (last?.role !== 'user') return undefined
  const context = CONTEXT.exec(last.text)?.[1]?.trim()
  if (context === undefined) return undefined
  if (!context)
    return { text: "I can't answer that from your documents: no passage matched the question.", delayMs: 18 }
  const excerpt = context.replace(/\s+/g, ' ').slice(0, 200)
  return { text: `From your documents: “${excerpt}…”`, delayMs: 18 }
}
