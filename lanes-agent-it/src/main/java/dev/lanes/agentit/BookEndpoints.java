package dev.lanes.agentit;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.hibernate.Hibernate;
import org.hibernate.proxy.HibernateProxy;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;
import org.springframework.web.util.HtmlUtils;

/**
 * The books, as JSON (each with its lazily loaded author, a Hibernate proxy that Jackson
 * serializes while the request's session is open) and as an HTML page.
 */
@RestController
class BookEndpoints {
  private final BookRepository books;

  BookEndpoints(BookRepository books) {
    this.books = books;
  }

  @GetMapping(value = "/", produces = MediaType.TEXT_HTML_VALUE)
  String page() {
    StringBuilder html = new StringBuilder("<!doctype html>\n<html><head><title>Bookshop</title></head><body>\n"
        + "<h1>Bookshop</h1>\n<ul>\n");
    for (Book b : books.findAllByOrderByIdAsc()) {
      html.append("<li>").append(HtmlUtils.htmlEscape(b.getTitle())).append(" by ")
          .append(HtmlUtils.htmlEscape(b.getAuthor().getName())).append(", ").append(b.getPrice())
          .append("</li>\n");
    }
    return html.append("</ul>\n</body></html>\n").toString();
  }

  @GetMapping("/books")
  List<Book> all() {
    return books.findAllByOrderByIdAsc();
  }

  @GetMapping("/books/{id}")
  Book one(@PathVariable long id) {
    return books.findById(id).orElseThrow(() -> new ResponseStatusException(HttpStatus.NOT_FOUND,
        "no book " + id));
  }

  /** What Hibernate handed out for the book's author: a proxy, initialized only once read. */
  @GetMapping("/books/{id}/author-proxy")
  @Transactional(readOnly = true)
  Map<String, Object> authorProxy(@PathVariable long id) {
    Author author = one(id).getAuthor();
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("hibernateProxy", author instanceof HibernateProxy);
    out.put("subclassOfAuthor", author.getClass() != Author.class && author instanceof Author);
    out.put("initializedBeforeRead", Hibernate.isInitialized(author));
    out.put("name", author.getName());
    out.put("initializedAfterRead", Hibernate.isInitialized(author));
    return out;
  }
}
