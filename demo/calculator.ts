/**
 * Arithmetic without eval: + - * / % ^, parentheses, unary minus, decimals. A recursive-descent
 * parser over a token list; anything else is an error that says where.
 */
export function calculate(expression: string): number {
  const tokens = expression.match(/\d+(?:\.\d+)?|[-+*/%^()]|\S/g) ?? []
  let position = 0
  const peek = () => tokens[position]
  const take = (expected?: string) => {
    const token = tokens[position]
    if (token === undefined || (expected !== undefined && token !== expected)) {
      throw new Error(`expected ${expected ?? 'more'} at token ${position + 1} of "${expression}"`)
    }
    position++
    return token
  }
  const primary = (): number => {
    const token = peek()
    if (token === '(') {
      take('(')
      const value = sum()
      take(')')
      return value
    }
    if (token === '-') return (take(), -primary())
    if (token === '+') return (take(), primary())
    if (token !== undefined && /^\d/.test(token)) return Number(take())
    throw new Error(`unexpected ${token === undefined ? 'end' : `"${token}"`} in "${expression}"`)
  }
  const power = (): number => {
    const base = primary()
    return peek() === '^' ? (take(), base ** power()) : base
  }
  const product = (): number => {
    let value = power()
    for (let token = peek(); token === '*' || token === '/' || token === '%'; token = peek()) {
      take()
      const right = power()
      if ((token === '/' || token === '%') && right === 0) throw new Error('division by zero')
      value = token === '*' ? value * right : token === '/' ? value / right : value % right
    }
    return value
  }
  const sum = (): number => {
    let value = product()
    for (let token = peek(); token === '+' || token === '-'; token = peek()) {
      take()
      value = token === '+' ? value + product() : value - product()
    }
    return value
  }
  if (tokens.length === 0) throw new Error('the expression is empty')
  const value = sum()
  if (position < tokens.length) throw new Error(`unexpected "${tokens[position]}" in "${expression}"`)
  return value
}
