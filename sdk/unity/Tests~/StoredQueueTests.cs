using System;
using System.Linq;
using NUnit.Framework;

namespace Service.Unity.Tests
{
    /// <summary>
    /// The stored queue over a store that is given the text at each change: every change reaches
    /// the store, and an item's age is read by the instant it names, whatever its offset.
    /// </summary>
    [TestFixture]
    public class StoredQueueTests
    {
        private static QueuedEvent Event(string id, string time)
        {
            return new QueuedEvent { EventId = id, EventType = "LEVEL_START", EventTime = time };
        }

        private static string[] IdsKept(MemoryStore store)
        {
            return new EventQueue(store).Peek(EventQueue.Capacity).Select(e => e.EventId).ToArray();
        }

        [Test]
        public void TheTestsRunWhereLocalTimeIsNotUniversal()
        {
            // test.sh runs them so: a time read as local rather than universal then shows.
            Assert.AreNotEqual(TimeSpan.Zero, TimeZoneInfo.Local.GetUtcOffset(DateTime.UtcNow), "run the tests with sdk/unity/test.sh");
        }

        [Test]
        public void EveryChangeReachesTheStore()
        {
            var store = new MemoryStore();
            var queue = new EventQueue(store);
            queue.Add(Event("a", "2026-11-01T10:00:00.000Z"));
            queue.Add(Event("b", "2026-11-02T10:00:00.000Z"));
            queue.Add(Event("c", "2026-11-03T10:00:00.000Z"));
            CollectionAssert.AreEqual(new[] { "a", "b", "c" }, IdsKept(store));

            queue.Remove(new[] { "b" });
            CollectionAssert.AreEqual(new[] { "a", "c" }, IdsKept(store));

            Assert.AreEqual(1, queue.RemoveOlderThan(new DateTime(2026, 11, 2, 0, 0, 0, DateTimeKind.Utc)));
            CollectionAssert.AreEqual(new[] { "c" }, IdsKept(store));

            Assert.AreEqual(1, queue.Clear());
            CollectionAssert.IsEmpty(IdsKept(store));
        }

        [Test]
        public void AnItemIsOldByTheInstantItNamesAndNotAtTheCutoffItself()
        {
            var queue = new EventQueue(new MemoryStore());
            // 10:00 at +02:00 is 08:00 UTC: before a cutoff of 09:00 UTC, though its clock says 10.
            queue.Add(Event("east", "2026-11-01T10:00:00.000+02:00"));
            queue.Add(Event("at", "2026-11-01T09:00:00.000Z"));
            queue.Add(Event("after", "2026-11-01T09:00:00.001Z"));
            Assert.AreEqual(1, queue.RemoveOlderThan(new DateTime(2026, 11, 1, 9, 0, 0, DateTimeKind.Utc)));
            CollectionAssert.AreEqual(new[] { "at", "after" }, queue.Peek(10).Select(e => e.EventId).ToArray());
        }

        [Test]
        public void AnItemWhoseTimeCannotBeReadIsNeverTakenForOld()
        {
            var queue = new EventQueue(new MemoryStore());
            queue.Add(Event("unreadable", "not a time"));
            Assert.AreEqual(0, queue.RemoveOlderThan(DateTime.UtcNow));
            Assert.AreEqual(1, queue.Count);
        }

        [TestCase("{\"event_id\":\"e1\"}")]
        [TestCase("\"e1\"")]
        public void ASavedQueueThatIsNoListIsLostAsAWhole(string saved)
        {
            var store = new MemoryStore();
            store.Set(EventQueue.Key, saved);
            var queue = new EventQueue(store);
            Assert.AreEqual(0, queue.Count);
            Assert.AreEqual(1, queue.LostOnLoad);
            Assert.IsTrue(queue.LostAtLeast, "how many it held is not known");
            StringAssert.Contains("not a JSON array", queue.LostWhy);
        }

        [Test]
        public void ASavedItemThatIsNoObjectIsLostAloneTheOthersKept()
        {
            var store = new MemoryStore();
            store.Set(EventQueue.Key, JsonText.Write(new object[] { Event("e1", "2026-11-01T10:00:00.000Z"), "e2", new[] { 1 }, null }));
            var queue = new EventQueue(store);
            CollectionAssert.AreEqual(new[] { "e1" }, queue.Peek(10).Select(e => e.EventId).ToArray());
            Assert.AreEqual(3, queue.LostOnLoad);
            Assert.IsFalse(queue.LostAtLeast);
        }
    }
}
