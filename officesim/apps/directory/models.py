"""The company directory: departments and people, shared by every app."""

from __future__ import annotations

from sqlmodel import Field, SQLModel


class Department(SQLModel, table=True):
    """A department (Finance, Sales, ...) with its head."""

    __tablename__ = "directory_department"

    id: str = Field(primary_key=True)  # dept_3
    name: str = Field(index=True)
    head_id: str | None = None  # person id


class Person(SQLModel, table=True):
    """An employee.  ``role`` is a stable key tasks use to find people ('cfo', 'ops_manager')."""

    __tablename__ = "directory_person"

    id: str = Field(primary_key=True)  # p_17
    name: str
    email: str = Field(index=True, unique=True)
    title: str
    department_id: str = Field(index=True)
    manager_id: str | None = Field(default=None, index=True)
    role: str | None = Field(default=None, index=True)
    location: str
    phone: str
