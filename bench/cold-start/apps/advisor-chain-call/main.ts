// advisor-chain, whole answer: .prompt().call().content(); its first text is the whole answer.
import { client } from '../advisor-chain'
import { QUESTION, exposeTurn } from '../shared'

exposeTurn(async (onText) => {
  const answer = await client.prompt(QUESTION).call().content()
  onText()
  return answer ?? ''
})
