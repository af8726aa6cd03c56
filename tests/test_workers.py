"""textqa.runtime.process_pool: the training's worker processes."""
import operator

from textqa.runtime import process_pool


def test_results_come_in_the_tasks_order_with_at_most_in_flight_tasks_submitted_ahead():
    drawn = []

    def tasks():
        for i in range(10):
            drawn.append(i)
            yield i
    got = []
    for k, result in enumerate(process_pool.results_in_order(operator.neg, tasks(), in_flight=3)):
        assert len(drawn) <= k + 3                      # never more than 3 tasks beyond those yielded
        got.append(result)
    assert got == [-i for i in range(10)]
    assert list(process_pool.results_in_order(operator.pow, [2, 3, 4], 2)) == [4, 9, 16]     # all at once
    early = process_pool.results_in_order(operator.neg, range(5))
    assert next(early) == 0
    early.close()                                       # stopping early cancels what has not started
