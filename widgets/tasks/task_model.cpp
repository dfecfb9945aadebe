// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/tasks/task_model.h"

namespace dice {

namespace {
// Internal ids: 0 marks a level row, level + 1 marks a task row under that level.
constexpr quintptr kLevelRow = 0;
} // namespace

TaskModel::TaskModel(QObject* parent)
    : QAbstractItemModel(parent) {}

void TaskModel::setTasks(const std::vector<Task>& tasks) {
    beginResetModel();
    for (auto& level : m_levels)
        level.clear();
    for (const auto& task : tasks) {
        if (task.level < 1 || task.level > 3)
            continue;
        m_levels[task.level - 1].push_back({QString::fromStdString(task.name),
                                            QString::fromStdString(task.title),
                                            QString::fromStdString(task.family)});
    }
    endResetModel();
}

QString TaskModel::levelName(int level) {
    switch (level) {
    case 1:
        return tr("Level 1: single operators");
    case 2:
        return tr("Level 2: fusions");
    case 3:
        return tr("Level 3: model blocks");
    }
    return {};
}

QModelIndex TaskModel::index(int row, int column, const QModelIndex& parent) const {
    if (column < 0 || column >= ColumnCount || row < 0)
        return {};
    if (!parent.isValid())
        return row < 3 ? createIndex(row, column, kLevelRow) : QModelIndex();
    if (parent.internalId() != kLevelRow)
        return {};
    const int level = parent.row();
    if (row >= static_cast<int>(m_levels[level].size()))
        return {};
    return createIndex(row, column, static_cast<quintptr>(level + 1));
}

QModelIndex TaskModel::parent(const QModelIndex& child) const {
    if (!child.isValid() || child.internalId() == kLevelRow)
        return {};
    return createIndex(static_cast<int>(child.internalId()) - 1, 0, kLevelRow);
}

int TaskModel::rowCount(const QModelIndex& parent) const {
    if (!parent.isValid())
        return 3;
    if (parent.internalId() != kLevelRow || parent.column() != 0)
        return 0;
    return static_cast<int>(m_levels[parent.row()].size());
}

int TaskModel::columnCount(const QModelIndex&) const {
    return ColumnCount;
}

QVariant TaskModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid())
        return {};
    if (index.internalId() == kLevelRow) {
        const int level = index.row() + 1;
        if (role == LevelRole)
            return level;
        if (role == Qt::DisplayRole && index.column() == NameColumn)
            return QStringLiteral("%1 (%2)")
                .arg(levelName(level))
                .arg(m_levels[index.row()].size());
        return {};
    }
    const int level = static_cast<int>(index.internalId());
    const Row& row = m_levels[level - 1][index.row()];
    switch (role) {
    case Qt::DisplayRole:
        if (index.column() == NameColumn)
            return row.name;
        if (index.column() == TitleColumn)
            return row.title;
        return row.family;
    case Qt::ToolTipRole:
        return row.title;
    case TaskNameRole:
        return row.name;
    case LevelRole:
        return level;
    default:
        return {};
    }
}

QVariant TaskModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn:
        return tr("Task");
    case TitleColumn:
        return tr("Title");
    case FamilyColumn:
        return tr("Family");
    }
    return {};
}

} // namespace dice
