import { describe, expect, it } from 'vitest'
import { calculate } from './calculator'

describe('calculate', () => {
  it('follows precedence, parentheses, powers and unary minus', () => {
    expect(calculate('2 + 3 * 4')).toBe(14)
    expect(calculate('(2 + 3) * 4')).toBe(20)
    expect(calculate('2 ^ 3 ^ 2')).toBe(512)
    expect(calculate('-3 + 10 % 4')).toBe(-1)
    expect(calculate('1.5 * -2')).toBe(-3)
  })

  it('refuses what is not arithmetic, without running it', () => {
    expect(() => calculate('alert(1)')).toThrow(/unexpected "a"/)
    expect(() => calculate('2 +')).toThrow(/unexpected end/)
    expect(() => calculate('1 / 0')).toThrow('division by zero')
    expect(() => calculate('')).toThrow('the expression is empty')
  })
})
