#include "workspace/schema_migrations.h"

#include "workspace/workspace_error.h"

#include <QCoreApplication>
#include <QSqlError>
#include <QSqlQuery>

namespace lathe::workspace {
namespace {

class Tr
{
    Q_DECLARE_TR_FUNCTIONS(lathe::workspace::Migrations)
};

bool hasColumn(QSqlDatabase &db, const QString &table, const QString &column)
{
    QSqlQuery query(db);
    if (!query.exec(QStringLiteral("PRAGMA table_info(%1)").arg(table)))
        return false; // the ALTER TABLE then reports what is wrong
    while (query.next()) {
        if (query.value(1).toString() == column)
            return true;
    }
    return false;
}

} // namespace

const std::vector<Migration> &projectMigrations()
{
    static const std::vector<Migration> migrations = {
        {1,
         {QStringLiteral("CREATE TABLE project_meta ("
                         " key TEXT PRIMARY KEY NOT NULL,"
                         " value TEXT NOT NULL)")}},
        // The dataset catalog. Images are looked up per dataset by class and split (counts,
        // the converter), by status (the rejected list) and by content hash (duplicates);
        // label_override_id gets a partial index so deleting a class need not scan every image.
        {2,
         {QStringLiteral("CREATE TABLE datasets ("
                         " id INTEGER PRIMARY KEY,"
                         " name TEXT NOT NULL UNIQUE,"
                         " source_dir TEXT NOT NULL,"
                         " folder_splits INTEGER NOT NULL DEFAULT 0,"
                         " seed INTEGER NOT NULL DEFAULT 0,"
                         " val_fraction REAL NOT NULL,"
                         " test_fraction REAL NOT NULL,"
                         " imported_at TEXT NOT NULL)"),
          QStringLiteral("CREATE TABLE classes ("
                         " id INTEGER PRIMARY KEY,"
                         " dataset_id INTEGER NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,"
                         " name TEXT NOT NULL,"
                         " UNIQUE(dataset_id, name))"),
          QStringLiteral("CREATE TABLE images ("
                         " id INTEGER PRIMARY KEY,"
                         " dataset_id INTEGER NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,"
                         " rel_path TEXT NOT NULL,"
                         " class_id INTEGER REFERENCES classes(id),"
                         " split TEXT NOT NULL,"
                         " size INTEGER NOT NULL,"
                         " mtime_ns INTEGER NOT NULL,"
                         " width INTEGER NOT NULL DEFAULT 0,"
                         " height INTEGER NOT NULL DEFAULT 0,"
                         " channels INTEGER NOT NULL DEFAULT 0,"
                         " bit_depth INTEGER NOT NULL DEFAULT 8,"
                         " cmyk INTEGER NOT NULL DEFAULT 0,"
                         " format TEXT NOT NULL,"
                         " exif_orientation INTEGER NOT NULL DEFAULT 1,"
                         " sha256 TEXT NOT NULL DEFAULT '',"
                         " dhash INTEGER NOT NULL DEFAULT 0,"
                         " status TEXT NOT NULL CHECK(status IN ('ok', 'rejected', 'duplicate')),"
                         " reason TEXT NOT NULL DEFAULT '',"
                         " label_override_id INTEGER REFERENCES classes(id),"
                         " excluded INTEGER NOT NULL DEFAULT 0,"
                         " near_dup_group INTEGER,"
                         " UNIQUE(dataset_id, rel_path))"),
          QStringLiteral("CREATE INDEX images_by_class_split ON images(dataset_id, class_id, split)"),
          QStringLiteral("CREATE INDEX images_by_status ON images(dataset_id, status)"),
          QStringLiteral("CREATE INDEX images_by_sha256 ON images(dataset_id, sha256)"),
          QStringLiteral("CREATE INDEX images_by_override ON images(label_override_id)"
                         " WHERE label_override_id IS NOT NULL")}},
        // Stored evaluations (the Evaluate page opens them without running the model again):
        // one row per evaluation with its metrics JSON, one per evaluated image. Looked up by
        // run, checkpoint, split and TTA; an evaluation's predictions go with it.
        {3,
         {QStringLiteral("CREATE TABLE evaluations ("
                         " id INTEGER PRIMARY KEY,"
                         " run_dir TEXT NOT NULL,"
                         " checkpoint TEXT NOT NULL,"
                         " split TEXT NOT NULL,"
                         " tta INTEGER NOT NULL DEFAULT 0,"
                         " created TEXT NOT NULL,"
                         " metrics_json TEXT NOT NULL)"),
          QStringLiteral("CREATE TABLE predictions ("
                         " evaluation_id INTEGER NOT NULL REFERENCES evaluations(id) ON DELETE CASCADE,"
                         " record INTEGER NOT NULL,"
                         " filename TEXT NOT NULL,"
                         " label INTEGER NOT NULL,"
                         " pred INTEGER NOT NULL,"
                         " prob REAL NOT NULL,"
                         " loss REAL NOT NULL,"
                         " top_json TEXT NOT NULL,"
                         " PRIMARY KEY(evaluation_id, record))"),
          QStringLiteral("CREATE INDEX evaluations_by_run ON evaluations(run_dir, checkpoint, split, tta)")}},
        // Exports made from the project (the Export page lists them and shows their report
        // again): paths relative to the project folder where they lie inside it, the formats as
        // a comma-separated list, the engine's report.json as written.
        {4,
         {QStringLiteral("CREATE TABLE exports ("
                         " id INTEGER PRIMARY KEY,"
                         " created TEXT NOT NULL,"
                         " run_dir TEXT NOT NULL,"
                         " checkpoint TEXT NOT NULL,"
                         " formats TEXT NOT NULL,"
                         " out_dir TEXT NOT NULL,"
                         " status TEXT NOT NULL CHECK(status IN ('ok', 'failed')),"
                         " report_json TEXT NOT NULL)")}},
        // Near-duplicate groups gathered around a representative, with a 256-bit perceptual
        // hash (near_hash, hex; the 64-bit dhash column is no longer written): each member's
        // Hamming distance to the representative's hash, and the dataset's threshold and hash
        // size (0: not grouped this way yet; a re-import does, reading the files again for
        // their new hash). The groups of earlier imports chained unrelated images together and
        // are dropped. shards_dir: the folder of the dataset's latest conversion, so the Data
        // page shows its shards when the project is opened again.
        {5,
         {QStringLiteral("UPDATE images SET near_dup_group = NULL, near_dup_distance = NULL")},
         {{QStringLiteral("images"), QStringLiteral("near_hash"), QStringLiteral("TEXT NOT NULL DEFAULT ''")},
          {QStringLiteral("images"), QStringLiteral("near_dup_distance"), QStringLiteral("INTEGER")},
          {QStringLiteral("datasets"), QStringLiteral("near_dup_threshold"), QStringLiteral("INTEGER NOT NULL DEFAULT 0")},
          {QStringLiteral("datasets"), QStringLiteral("near_dup_bits"), QStringLiteral("INTEGER NOT NULL DEFAULT 0")},
          {QStringLiteral("datasets"), QStringLiteral("shards_dir"), QStringLiteral("TEXT NOT NULL DEFAULT ''")}}},
        // Multi-label datasets, imported from an image folder and a labels file: a dataset says
        // its task ('single_label': one class folder per image; 'multi_label') and the labels file
        // it was imported from (absolute; '' for class folders). image_labels holds each image's
        // label set in effect (the labels file's, or the user's edit: labels_edited, kept by a
        // re-import while the file's content is the same); looked up per image, and per class so
        // that deleting a class need not scan every row. IF NOT EXISTS: a database whose
        // user_version was set back by hand runs this step again.
        {6,
         {QStringLiteral("CREATE TABLE IF NOT EXISTS image_labels ("
                         " image_id INTEGER NOT NULL REFERENCES images(id) ON DELETE CASCADE,"
                         " class_id INTEGER NOT NULL REFERENCES classes(id),"
                         " PRIMARY KEY(image_id, class_id)) WITHOUT ROWID"),
          QStringLiteral("CREATE INDEX IF NOT EXISTS image_labels_by_class ON image_labels(class_id)")},
         {{QStringLiteral("datasets"), QStringLiteral("task"),
           QStringLiteral("TEXT NOT NULL DEFAULT 'single_label' CHECK(task IN ('single_label', 'multi_label'))")},
          {QStringLiteral("datasets"), QStringLiteral("labels_file"), QStringLiteral("TEXT NOT NULL DEFAULT ''")},
          {QStringLiteral("images"), QStringLiteral("labels_edited"), QStringLiteral("INTEGER NOT NULL DEFAULT 0")}}},
    };
    return migrations;
}

int schemaVersion(QSqlDatabase &db, const QString &dbLabel)
{
    QSqlQuery query(db);
    if (!query.exec(QStringLiteral("PRAGMA user_version")) || !query.next())
        throw WorkspaceError(Tr::tr("%1: cannot read the database (%2). The file is damaged or is not a "
                                    "Lathe project database.")
                                 .arg(dbLabel, query.lastError().text()));
    return query.value(0).toInt();
}

void migrate(QSqlDatabase &db, const std::vector<Migration> &migrations, const QString &dbLabel)
{
    const int current = schemaVersion(db, dbLabel);
    for (const Migration &migration : migrations) {
        if (migration.version <= current)
            continue;
        if (!db.transaction())
            throw WorkspaceError(Tr::tr("%1: cannot start a transaction (%2)").arg(dbLabel, db.lastError().text()));
        QSqlQuery query(db);
        QStringList statements;
        for (const AddedColumn &column : migration.columns) {
            if (!hasColumn(db, column.table, column.name))
                statements << QStringLiteral("ALTER TABLE %1 ADD COLUMN %2 %3").arg(column.table, column.name, column.definition);
        }
        statements << migration.statements;
        statements << QStringLiteral("PRAGMA user_version = %1").arg(migration.version);
        for (const QString &statement : statements) {
            if (!query.exec(statement)) {
                const QString reason = query.lastError().text();
                db.rollback();
                throw WorkspaceError(Tr::tr("%1: upgrading the schema to version %2 failed (%3); the project "
                                            "was left unchanged at version %4")
                                         .arg(dbLabel)
                                         .arg(migration.version)
                                         .arg(reason)
                                         .arg(schemaVersion(db, dbLabel)));
            }
        }
        if (!db.commit())
            throw WorkspaceError(Tr::tr("%1: cannot commit the schema upgrade (%2)").arg(dbLabel, db.lastError().text()));
    }
}

} // namespace lathe::workspace
