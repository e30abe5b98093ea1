"""Drive tables: folders, docs and sheets in one file tree, typed sheet rows, sharing."""

from __future__ import annotations

from sqlmodel import Field, SQLModel


class File(SQLModel, table=True):
    """A folder, a document (text/markdown in ``content``) or a spreadsheet."""

    __tablename__ = "drive_file"

    id: str = Field(primary_key=True)  # f_7
    name: str = Field(index=True)
    kind: str  # folder | doc | sheet
    parent_id: str | None = Field(default=None, index=True)  # folder id; None = owner's root
    owner_id: str = Field(index=True)
    content: str = ""  # documents only
    created_at: str
    modified_at: str
    modified_by: str
    trashed: bool = False


class Sheet(SQLModel, table=True):
    """A named sheet (tab) of a spreadsheet: header row and column types."""

    __tablename__ = "drive_sheet"

    id: str = Field(primary_key=True)  # sh_3
    file_id: str = Field(index=True)
    name: str
    position: int = 0
    columns: str = "[]"  # JSON list of header names
    column_types: str = "[]"  # JSON list: text | number | date | bool


class Row(SQLModel, table=True):
    """One data row of a sheet; ``cells`` is a JSON list aligned with the sheet's columns."""

    __tablename__ = "drive_row"

    id: str = Field(primary_key=True)  # row_91
    sheet_id: str = Field(index=True)
    position: int  # 1-based data row number (the header is row 0)
    cells: str = "[]"


class Permission(SQLModel, table=True):
    """A grant on a file: to one person or to the whole domain, as viewer or editor."""

    __tablename__ = "drive_permission"

    id: str = Field(primary_key=True)  # perm_5
    file_id: str = Field(index=True)
    principal: str  # person | domain
    person_id: str | None = Field(default=None, index=True)
    role: str  # viewer | editor
