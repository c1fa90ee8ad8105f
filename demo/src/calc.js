// The demo's code: a small calculator with a bug for the tests to find.
// CodeAnchors point at symbols here (Calculator, Calculator.average): edit above them and a landing still finds its line.

class Calculator {
  constructor(precision = 2) {
    this.precision = precision;
  }

  add(a, b) {
    return this.round(a + b);
  }

  percent(value, pct) {
    return this.round((value * pct) / 100);
  }

  /** The mean of `values`; 0 for an empty list. */
  average(values) {
    const total = values.reduce((sum, v) => sum + v);
    return this.round(total / values.length);
  }

  round(x) {
    const f = 10 ** this.precision;
    return Math.round(x * f) / f;
  }
}

module.exports = { Calculator };
