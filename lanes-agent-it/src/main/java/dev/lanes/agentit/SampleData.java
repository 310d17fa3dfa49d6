package dev.lanes.agentit;

import java.math.BigDecimal;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

/** Fills the in-memory database at start: the same rows, in the same order, every run. */
@Component
class SampleData implements ApplicationRunner {
  private final AuthorRepository authors;
  private final BookRepository books;

  SampleData(AuthorRepository authors, BookRepository books) {
    this.authors = authors;
    this.books = books;
  }

  @Override
  @Transactional
  public void run(ApplicationArguments args) {
    Author lovelace = authors.save(new Author("Ada Lovelace", 1815));
    Author hopper = authors.save(new Author("Grace Hopper", 1906));
    books.save(new Book("Notes on the Analytical Engine", new BigDecimal("12.50"), 4.75, lovelace));
    books.save(new Book("Sketch of the Engine", new BigDecimal("8.05"), 3.5, lovelace));
    books.save(new Book("A Manual of Operation", new BigDecimal("19.99"), 4.125, hopper));
  }
}
