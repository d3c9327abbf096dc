// advisor-chain, streamed: .prompt().stream().content().
import { client } from '../advisor-chain'
import { QUESTION, exposeTurn } from '../shared'

exposeTurn(async (onText) => {
  let text = ''
  for await (const delta of client.prompt(QUESTION).stream().content()) {
    if (!delta) continue
    onText()
    text += delta
  }
  return text
})
