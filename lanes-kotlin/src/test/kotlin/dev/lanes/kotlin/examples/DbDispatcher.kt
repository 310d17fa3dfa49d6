package dev.lanes.kotlin.examples

import dev.lanes.Lane
import dev.lanes.kotlin.asLaneDispatcher
import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext

fun main() = runBlocking {
  Lane.blocking("db", 8).queueCapacity(500).build().use { db ->
    val dbDispatcher = db.asLaneDispatcher()          // or LaneDispatcher(db, label = "orders")
    val user = withContext(dbDispatcher) {
      delay(10)                                       // gives the lane's permit back while it waits
      loadUser(42)                                    // resumes as a new task of the lane
    }
    println("$user; lane tasks: ${db.stats().submitted()}")
  }
}

fun loadUser(id: Int): String = "user $id"
