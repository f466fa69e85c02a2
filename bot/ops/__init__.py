"""Operations: metrics, health, data export and deletion, and the doctor."""
