/// The search behind `WorstCaseEngine`'s worst case of a number of credits, in steps of the
/// credits' common divisor `step`.
///
/// `table[t]` is the worst way to use t steps (some may go unused), as a
/// `WorstCaseEngine.Plan`: the highest cost, then the fewest unspent steps, then the most
/// requests of the fill shape (`bestIndex`); a plan equal in all three to one found earlier
/// is not taken (items are tried in order of credits, feature, dimension). Each part adds up
/// along a plan, so the order is kept by the table and by the fill with the best shape; and
/// the pigeonhole argument still holds, since swapping other requests for copies of the best
/// shape never lowers the cost, keeps the steps spent and adds requests of it.
struct WorstCaseSearch {
    typealias Plan = WorstCaseEngine.Plan

    let items: [RequestShape]
    let step: Int128
    var table: [Exact]
    var unused: [Int32]
    var ofBest: [Int32]
    /// item index, or -1 = leave one step unused
    var choice: [Int]

    /// The fill shape: the highest cost per credit among requests that fit in `n` credits
    /// (ties: fewer credits, the order of `items`); a larger one could never be made.
    /// `items` is not empty.
    static func fillShape(_ items: [RequestShape], credits n: Int128) throws -> RequestShape {
        let fitting = items.filter { $0.credits <= n }
        let candidates = fitting.isEmpty ? items : fitting
        var best = candidates[0]
        var bestRatio = try best.costPerCredit()
        for s in candidates.dropFirst() {
            let r = try s.costPerCredit()
            if r > bestRatio {
                best = s
                bestRatio = r
            }
        }
        return best
    }

    /// Fills the table for 0 … `size` steps. It is the hot loop of every worst case.
    init(items: [RequestShape], step g: Int128, size: Int, bestIndex: Int) throws {
        self.items = items
        step = g
        table = [Exact](repeating: .zero, count: size + 1)
        unused = [Int32](repeating: 0, count: size + 1)
        ofBest = [Int32](repeating: 0, count: size + 1)
        choice = [Int](repeating: -1, count: size + 1)
        guard size > 0 else { return }
        for t in 1...size {
            var plan = Plan(
                cost: table[t - 1], unused: Int128(unused[t - 1]) + 1,
                ofBest: Int128(ofBest[t - 1]))
            var chosen = -1
            for (i, item) in items.enumerated() where item.credits / g <= Int128(t) {
                let from = t - Int(item.credits / g)
                let candidate = Plan(
                    cost: try table[from].adding(item.cost.amount),
                    unused: Int128(unused[from]),
                    ofBest: Int128(ofBest[from]) + (i == bestIndex ? 1 : 0))
                if candidate.isWorse(than: plan) {
                    plan = candidate
                    chosen = i
                }
            }
            table[t] = plan.cost
            unused[t] = Int32(plan.unused)
            ofBest[t] = Int32(plan.ofBest)
            choice[t] = chosen
        }
    }

    /// The worst plan over all `steps`: some t steps of the table, the rest filled with
    /// copies of `best` (what they leave over unspent); its cost and t.
    func bestEnd(steps: Int128, best: RequestShape) throws -> (cost: Exact, steps: Int) {
        let s = best.credits / step
        var bestPlan: Plan?
        var bestT = 0
        for t in 0..<table.count {
            let copies = (steps - Int128(t)) / s
            let left = (steps - Int128(t)) - copies * s
            let plan = Plan(
                cost: try table[t].adding(best.cost.amount.multiplied(by: copies)),
                unused: Int128(unused[t]) + left, ofBest: Int128(ofBest[t]) + copies)
            if bestPlan.map({ plan.isWorse(than: $0) }) ?? true {
                bestPlan = plan
                bestT = t
            }
        }
        return (bestPlan?.cost ?? .zero, bestT)
    }

    /// The requests of the table's plan for `t` steps, and the steps it leaves unspent.
    func walkBack(from start: Int) -> (counts: [RequestShape: Int128], unspentSteps: Int128) {
        var counts: [RequestShape: Int128] = [:]
        var unspentSteps: Int128 = 0
        var t = start
        while t > 0 {
            let c = choice[t]
            if c < 0 {
                unspentSteps += 1
                t -= 1
            } else {
                counts[items[c], default: 0] += 1
                t -= Int(items[c].credits / step)
            }
        }
        return (counts, unspentSteps)
    }
}
