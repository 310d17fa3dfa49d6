package dev.lanes.agentit;

import java.util.List;
import org.springframework.data.jpa.repository.JpaRepository;

interface BookRepository extends JpaRepository<Book, Long> {
  List<Book> findAllByOrderByIdAsc();
}
