package dev.lanes.agentit;

import jakarta.persistence.Entity;
import jakarta.persistence.FetchType;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.ManyToOne;
import java.math.BigDecimal;

/** A book: a price (BigDecimal), a rating (double) and its author, loaded lazily. */
@Entity
public class Book {
  @Id
  @GeneratedValue(strategy = GenerationType.IDENTITY)
  private Long id;
  private String title;
  private BigDecimal price;
  private double rating;
  @ManyToOne(fetch = FetchType.LAZY, optional = false)
  private Author author;

  protected Book() {}

  Book(String title, BigDecimal price, double rating, Author author) {
    this.title = title;
    this.price = price;
    this.rating = rating;
    this.author = author;
  }

  public Long getId() {
    return id;
  }

  public String getTitle() {
    return title;
  }

  public BigDecimal getPrice() {
    return price;
  }

  public double getRating() {
    return rating;
  }

  public Author getAuthor() {
    return author;
  }
}
